#!/usr/bin/env bash
# The first candidate of every built-in family that applies to each bench
# task, checked against the task's reference on the CPU (Triton's
# interpreter, every check shape, three seeds): one line per pair and a
# count at the end; exit 1 when any candidate fails its check. A wrong
# candidate costs a GPU round for nothing, so this is run after changing a
# family. About 20 minutes on a 2-core machine.
#   bash scripts/audit_candidates.sh [TASK_GLOB]   (default: every task)
set -u
cd "$(dirname "$0")/.."
pattern=${1:-*}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fams=$(build/tritondx rewrite --list | awk '{print $1}')
n=0
bad=0
for f in bench/tasks/$pattern.py; do
  t=$(basename "$f" .py)
  for fam in $fams; do
    first=$(build/tritondx rewrite --family "$fam" --out-dir "$out/$t-$fam" "$f" 2>/dev/null | head -n 1 | cut -f1)
    [ -n "$first" ] || continue
    n=$((n + 1))
    if line=$(timeout 300 build/tritondx check --candidate "$first" "$f" 2>&1 | tail -n 1) &&
       [[ "$line" == *"correct on every check shape"* ]]; then
      echo "ok    $t $fam"
    else
      bad=$((bad + 1))
      echo "FAIL  $t $fam: $line"
    fi
  done
done
echo "candidates checked: $n, failing: $bad"
[ "$bad" -eq 0 ]
