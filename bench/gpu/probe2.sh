#!/usr/bin/env bash
# The commands of levels 1-3 on the GPU machine: ceilings, profile, check on
# the GPU, ncu metrics and rules for one task, and diagnose through every level.
set -u
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
T=bench/tasks
{
echo "== tritondx ceilings"; build/tritondx ceilings
echo "== tritondx check --device cuda $T/softmax_long.py"; build/tritondx check --device cuda $T/softmax_long.py | tail -2
echo "== tritondx profile $T/col_sum.py"; build/tritondx profile $T/col_sum.py
echo "== tritondx diagnose --all-levels $T/matmul_fp32_square.py"
timeout 300 build/tritondx diagnose --all-levels $T/matmul_fp32_square.py 2>&1 | grep -E "warning|error|^level|decided" | cut -c1-220
} 2>&1 | tee "$OUT/commands.txt"
echo "== ncu softmax_long"
timeout 300 python3 -m tritondx_harness ncu --task $T/softmax_long.py > "$OUT/ncu.json" 2> "$OUT/ncu.err"
python3 - "$OUT/ncu.json" <<'PY' | tee "$OUT/ncu.txt"
import json, sys
r = json.load(open(sys.argv[1]))
if not r.get("ok"):
    print("ncu failed:", r.get("error")); sys.exit()
for k in r.get("kernels", [])[:1]:
    print("kernel", k.get("name"))
    for m, v in sorted((k.get("metrics") or {}).items()):
        print(f"  {m} = {v}")
    for rule in (k.get("rules") or [])[:12]:
        print("  rule", json.dumps(rule)[:240])
print("keys:", sorted(r.keys()))
PY
