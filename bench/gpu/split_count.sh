#!/usr/bin/env bash
# How many programs per block split-reduction should try first: every
# candidate the family yields for the column reductions (split over 8, 32
# and 4 programs), timed against the task's own kernel by the harness's
# `time` verb, one line each. Needs build/ carried (the candidates are
# written by `tritondx rewrite` on the machine).
set -u
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT/split"
printf '%-16s %-8s %12s %12s %8s\n' task split task_ms cand_ms speedup
for t in ${TASKS:-col_mean_bf16 col_max_fp16}; do
  build/tritondx rewrite --family split-reduction --out-dir "$OUT/split/$t" "bench/tasks/$t.py" > "$OUT/split/$t.list"
  while IFS=$'\t' read -r cand summary; do
    n=$(echo "$summary" | grep -o 'over [0-9]* programs' | grep -o '[0-9]*')
    timeout 120 python3 -m tritondx_harness time --task "bench/tasks/$t.py" --candidate "$cand" --no-reference \
      > "$OUT/split/$t-$n.json" 2> "$OUT/split/$t-$n.err"
    python3 - "$OUT/split/$t-$n.json" "$t" "$n" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    v = r["variants"]
    b, c = v["baseline"]["median_ms"], v["candidate"]["median_ms"]
    print(f"{sys.argv[2]:16s} {sys.argv[3]:8s} {b:12.4f} {c:12.4f} {b / c:7.2f}x")
except Exception as e:  # noqa: BLE001
    print(f"{sys.argv[2]:16s} {sys.argv[3]:8s} failed: {e}")
PY
  done < "$OUT/split/$t.list"
done
tar -C "$OUT" -czf "$OUT/split.tar.gz" split && rm -rf "$OUT/split"
