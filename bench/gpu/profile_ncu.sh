#!/usr/bin/env bash
# Level 1 on five tasks with Nsight Compute (`tritondx profile --ncu`), plus
# where one optimize candidate's seconds go (interpreter start, check, time).
# Raw replies are packed into $OUT/profile.tar.gz; a short log is printed.
set -u
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT/p"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
T=bench/tasks
TASKS=${TASKS:-"elementwise_add softmax_long layernorm matmul_fp16_square matmul_fp32_square"}
# run a command and print its exit status and seconds on stderr (no bc there)
secs() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$((($(date +%s%N) - s) / 1000000)); echo "rc=$rc seconds=$((ms / 1000)).$(printf %03d $((ms % 1000)))" >&2; }
{
for t in $TASKS; do
  echo "== tritondx profile --ncu $T/$t.py"
  secs timeout 240 build/tritondx profile --ncu "$T/$t.py" > "$OUT/p/$t.txt" 2> "$OUT/p/$t.err"
  cat "$OUT/p/$t.txt" | cut -c1-200; tail -3 "$OUT/p/$t.err"
  timeout 240 build/tritondx profile --ncu --format json "$T/$t.py" > "$OUT/p/$t.json" 2>/dev/null
done
t=softmax_long
echo "== cost of one candidate ($t, candidate = the task itself)"
echo "-- python3 -c 'import torch, triton'"; secs python3 -c 'import torch, triton'
echo "-- harness check --device cuda"; secs python3 -m tritondx_harness check --task $T/$t.py --candidate $T/$t.py --device cuda > "$OUT/p/cost_check.json"
echo "-- harness time --candidate (as the loop calls it)"; secs python3 -m tritondx_harness time --task $T/$t.py --candidate $T/$t.py > "$OUT/p/cost_time.json"
echo "-- harness time --candidate --no-reference"; secs python3 -m tritondx_harness time --task $T/$t.py --candidate $T/$t.py --no-reference > "$OUT/p/cost_time_noref.json"
t=matmul_fp16_square
echo "-- $t: harness check --device cuda"; secs python3 -m tritondx_harness check --task $T/$t.py --candidate $T/$t.py --device cuda > /dev/null
echo "-- $t: harness time --candidate"; secs python3 -m tritondx_harness time --task $T/$t.py --candidate $T/$t.py > /dev/null
echo "-- $t: harness time --candidate --no-reference"; secs python3 -m tritondx_harness time --task $T/$t.py --candidate $T/$t.py --no-reference > /dev/null
} 2>&1 | tee "$OUT/log.txt"
tar -C "$OUT" -czf "$OUT/profile.tar.gz" p && rm -rf "$OUT/p"
