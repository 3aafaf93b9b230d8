#!/usr/bin/env bash
# Every candidate a family yields for a task, timed against the task's own
# kernel by the harness's `time` verb, one line each: which variant of a
# family (split count, rows folded, ...) should come first. Needs build/
# carried (the candidates are written by `tritondx rewrite` on the machine).
# A family written A+B applies A's first candidate, then every candidate of
# B to that (two rewrites stacked, as two kept rounds would).
#   PAIRS="split-reduction:col_mean_bf16 fold-programs:rope_fp16" bash bench/gpu/family_variants.sh
set -u
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/tdx-out}
PAIRS=${PAIRS:-"split-reduction:col_mean_bf16 split-reduction:col_max_fp16 fold-programs:rope_fp16"}
mkdir -p "$OUT/variants"
printf '%-16s %-16s %-4s %12s %12s %8s  %s\n' family task n task_ms cand_ms speedup summary
for pair in $PAIRS; do
  fam=${pair%%:*}
  t=${pair#*:}
  dir="$OUT/variants/$fam-$t"
  src="bench/tasks/$t.py"
  while [ "${fam#*+}" != "$fam" ]; do
    first=${fam%%+*}
    build/tritondx rewrite --family "$first" --out-dir "$dir-$first" "$src" > "$dir-$first.list" 2>> "$dir.err"
    src=$(head -n 1 "$dir-$first.list" | cut -f1)
    [ -n "$src" ] || break
    fam=${fam#*+}
  done
  mkdir -p "$dir"
  build/tritondx rewrite --family "$fam" --out-dir "$dir" "${src:-/nonexistent}" > "$dir.list" 2>> "$dir.err"
  i=0
  while IFS=$'\t' read -r cand summary; do
    i=$((i + 1))
    timeout 120 python3 -m tritondx_harness time --task "bench/tasks/$t.py" --candidate "$cand" --no-reference \
      > "$dir-$i.json" 2> "$dir-$i.err"
    python3 - "$dir-$i.json" "$fam" "$t" "$i" "$summary" <<'PY'
import json, sys
path, fam, task, i, summary = sys.argv[1:6]
try:
    v = json.load(open(path))["variants"]
    b, c = v["baseline"]["median_ms"], v["candidate"]["median_ms"]
    print(f"{fam:16s} {task:16s} {i:4s} {b:12.4f} {c:12.4f} {b / c:7.2f}x  {summary[:70]}")
except Exception as e:  # noqa: BLE001
    print(f"{fam:16s} {task:16s} {i:4s} failed: {e}  {summary[:70]}")
PY
  done < "$dir.list"
done
tar -C "$OUT" -czf "$OUT/variants.tar.gz" variants && rm -rf "$OUT/variants"
