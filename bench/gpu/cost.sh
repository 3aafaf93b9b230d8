#!/usr/bin/env bash
# Where one optimize candidate's seconds go on the GPU machine: the steps of
# a check and a timing in one process (bench/gpu/cost_phases.py), then the
# harness verbs as the loop calls them, each with a cold Triton cache (a
# fresh directory, as every sandboxed child has now) and again warm (the same
# directory), the `trial` verb (check and timing in one interpreter, as the
# loop calls it on a GPU), then the torch baselines. QUICK=1: only the cold
# check, the cold time and the trial. Prints a log; raw replies in
# $OUT/cost.tar.gz.
set -u
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT/c"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
T=bench/tasks
TASKS=${TASKS:-"elementwise_add softmax_long matmul_fp16_square"}
secs() { local s=$(date +%s%N); "$@"; local rc=$?; local ms=$((($(date +%s%N) - s) / 1000000)); echo "   rc=$rc seconds=$((ms / 1000)).$(printf %03d $((ms % 1000)))" >&2; }
{
echo "-- python3 -c pass"; secs python3 -c pass
echo "-- import torch"; secs python3 -c 'import torch'
echo "-- import torch, triton; cuda start"; secs python3 -c 'import torch, triton; torch.zeros(1, device="cuda")'
QUICK=${QUICK:-0}
for t in $TASKS; do
  echo "== $t"
  echo "-- trial --baseline (check --bench-shape + time, one interpreter; cold)"
  C=$(mktemp -d)
  secs env TRITON_CACHE_DIR=$C timeout 200 python3 -m tritondx_harness trial --task $T/$t.py --candidate $T/$t.py --baseline $T/$t.py --bench-shape > "$OUT/c/$t.trial.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); t=r.get("time") or {}; print("   ok", r.get("ok"), "check_s", r.get("check_s"), "time_s", r.get("time_s"), "time ok", t.get("ok"), (t.get("variants") or {}).get("candidate", {}).get("median_ms"), t.get("error"))' "$OUT/c/$t.trial.json"
  if [ "$QUICK" = 1 ]; then
    C=$(mktemp -d)
    echo "-- check --candidate --device cuda --bench-shape (cold)"
    secs env TRITON_CACHE_DIR=$C timeout 200 python3 -m tritondx_harness check --task $T/$t.py --candidate $T/$t.py --device cuda --bench-shape > "$OUT/c/$t.check.cold.json"
    C=$(mktemp -d)
    echo "-- time --candidate --no-reference (cold)"
    secs env TRITON_CACHE_DIR=$C timeout 200 python3 -m tritondx_harness time --task $T/$t.py --candidate $T/$t.py --no-reference > "$OUT/c/$t.time.cold.json"
    continue
  fi
  echo "-- steps in one process (cold cache)"
  C=$(mktemp -d); TRITON_CACHE_DIR=$C timeout 200 python3 bench/gpu/cost_phases.py $T/$t.py | tee "$OUT/c/$t.phases.json"
  echo "-- the same, warm cache"
  TRITON_CACHE_DIR=$C timeout 200 python3 bench/gpu/cost_phases.py $T/$t.py | tee "$OUT/c/$t.phases_warm.json"
  for cache in cold warm; do
    [ $cache = cold ] && C=$(mktemp -d)
    echo "-- check --candidate --device cuda --bench-shape ($cache)"
    secs env TRITON_CACHE_DIR=$C timeout 200 python3 -m tritondx_harness check --task $T/$t.py --candidate $T/$t.py --device cuda --bench-shape > "$OUT/c/$t.check.$cache.json"
    echo "-- check --candidate --device cuda --seeds 0 ($cache)"
    secs env TRITON_CACHE_DIR=$C timeout 200 python3 -m tritondx_harness check --task $T/$t.py --candidate $T/$t.py --device cuda --seeds 0 > /dev/null
    echo "-- time --candidate --no-reference ($cache)"
    [ $cache = cold ] && C=$(mktemp -d)
    secs env TRITON_CACHE_DIR=$C timeout 200 python3 -m tritondx_harness time --task $T/$t.py --candidate $T/$t.py --no-reference > "$OUT/c/$t.time.$cache.json"
  done
  echo "-- time --torch-only --torch-compile"
  secs timeout 200 python3 -m tritondx_harness time --task $T/$t.py --torch-only --torch-compile > "$OUT/c/$t.torch.json"
done
} 2>&1 | tee "$OUT/c/log.txt"
tar -C "$OUT" -czf "$OUT/cost.tar.gz" c && rm -rf "$OUT/c"
