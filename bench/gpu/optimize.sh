#!/usr/bin/env bash
# `tritondx optimize` over a list of tasks on the GPU, each with a time budget;
# every run directory is packed into $OUT/runs.tar.gz and a table is printed.
# Usage: TASKS="softmax_long layernorm" BUDGET=80 bash bench/gpu/optimize.sh
set -u
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT/runs"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
TASKS=${TASKS:-"softmax_long layernorm matmul_fp16_square matmul_fp32_square"}
BUDGET=${BUDGET:-80}
ROUNDS=${ROUNDS:-3}
CANDS=${CANDS:-4}
LEVEL=${LEVEL:-3}
for t in $TASKS; do
  echo "== optimize $t" >&2
  start=$(date +%s%N)
  timeout $((BUDGET + 120)) build/tritondx optimize --no-progress --rounds "$ROUNDS" --candidates "$CANDS" \
    --budget "$BUDGET" --max-level "$LEVEL" --run-dir "$OUT/runs/$t" --out "$OUT/runs/$t.opt.py" \
    "bench/tasks/$t.py" > "$OUT/runs/$t.stdout" 2> "$OUT/runs/$t.stderr"
  rc=$?; ms=$((($(date +%s%N) - start) / 1000000))  # no bc on the GPU machine
  echo "rc=$rc seconds=$((ms / 1000)).$(printf %03d $((ms % 1000)))" >> "$OUT/runs/$t.stdout"
done
python3 bench/gpu/summarize_runs.py "$OUT/runs" | tee "$OUT/summary.txt"
tar -C "$OUT" -czf "$OUT/runs.tar.gz" runs && rm -rf "$OUT/runs"
