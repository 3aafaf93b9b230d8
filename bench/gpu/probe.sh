#!/usr/bin/env bash
# One call on the GPU machine: environment, the device's ceilings, level 1 on
# five tasks (each timed twice in one process for the stability check), ncu on
# one task, and JIT-vs-AOT specialization of one task. Raw JSON goes to $OUT;
# a short table is printed last. Run from the repository root with build/
# carried (bench/gpu/README.md).
set -u
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
H="python3 -m tritondx_harness"
log() { echo "== $*" >&2; }

log env
{ date -u; nvidia-smi -L; python3 -c 'import sys,torch,triton;print(sys.version.split()[0], torch.__version__, triton.__version__)';
  ldd build/tritondx | grep -E 'not found|jansson|curl'; build/tritondx --version; } 2>&1 | tee "$OUT/env.txt"

log ceilings
$H ceilings --refresh > "$OUT/ceilings.json" 2> "$OUT/ceilings.err"

TASKS=${TASKS:-"elementwise_add softmax_long layernorm matmul_fp16_square matmul_fp32_square"}
for t in $TASKS; do
  log "time $t (baseline against itself, torch.compile)"
  timeout 240 $H time --task bench/tasks/$t.py --candidate bench/tasks/$t.py --torch-compile \
    > "$OUT/time_$t.json" 2> "$OUT/time_$t.err"
  log "diagnose $t"
  timeout 240 build/tritondx diagnose --max-level 1 --all-levels --format json bench/tasks/$t.py \
    > "$OUT/dx_$t.json" 2> "$OUT/dx_$t.err"
done

log "ncu softmax_long"
timeout 300 $H ncu --task bench/tasks/softmax_long.py > "$OUT/ncu_softmax_long.json" 2> "$OUT/ncu.err"

log "capture jit vs aot: matmul_fp16_square"
for m in jit aot; do
  timeout 240 $H capture --task bench/tasks/matmul_fp16_square.py --mode $m --out "/tmp/cap_$m" \
    > "$OUT/capture_$m.json" 2> "$OUT/capture_$m.err"
done

python3 bench/gpu/summarize_probe.py "$OUT" | tee "$OUT/summary.txt"
