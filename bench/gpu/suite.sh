#!/usr/bin/env bash
# `tritondx bench` over a slice of the suite in one call of at most ~9 minutes:
# one `tritondx bench` process per task under its own timeout (a task that hangs
# or overruns costs only its own slot), a row for every task of the slice (run,
# killed, or not reached), the rows merged into $OUT/RESULTS.md and
# $OUT/results.json, every run directory packed into $OUT/suite.tar.gz.
#
# Usage (from the repository root, build/ carried; see bench/gpu/README.md):
#   RANGE=0:15 bash bench/gpu/suite.sh           # tasks 0..14 of the sorted suite
#   TASKS="softmax_* layernorm" bash bench/gpu/suite.sh
# Then, here: build/tritondx bench --merge A/results.json B/results.json C/results.json
#
# Settings (environment):
#   TASKS    shell patterns on task names without .py (default: every task)
#   RANGE    FROM:TO, 0-based, TO exclusive, over the sorted tasks left by TASKS
#   BUDGET   optimize budget per task, seconds (checked before each round)
#   ROUNDS, CANDS, LEVEL   rounds, candidates per round, --max-level
#   TOTAL    wall seconds for the whole call (default 530, under the 600 s
#            of one call); a task starts only when MIN_TASK (30) s are left,
#            and is killed at the end of TOTAL at the latest
#   TASK_LIMIT  hard limit of one task's bench process (BUDGET + TORCH_LIMIT + 60)
#   TORCH_LIMIT limit of the torch baselines' timing of one task (90)
#   DEVICE   cuda (default) or cpu (with TDX_TEST_TIMER: a dry run)
#   SUITE, TDX   the task folder and the binary
#
# Cost per task, from the code (GPU machine, warm Triton cache):
#   torch baselines: one `time --torch-compile` (eager + torch.compile) ~20-40 s
#   baseline timing: one `time` ~8 s; level 0 diagnosis < 1 s a round
#   each candidate: one `check` + one `time`, ~12-15 s
# The budget is checked before each round, so a round may run past it by its
# candidates; TASK_LIMIT bounds that. Defaults: 1 round of 2 candidates at
# level 1 fits 15 tasks in ~9 minutes, i.e. the 45 tasks in 3 calls
# (RANGE=0:15, 15:30, 30:45).
set -u
set -f  # TASKS holds patterns: match them against task names, never against files here
OUT=${OUT:-/tmp/tdx-out}
SUITE=${SUITE:-bench/tasks}
TDX=${TDX:-build/tritondx}
BUDGET=${BUDGET:-15}
ROUNDS=${ROUNDS:-1}
CANDS=${CANDS:-2}
LEVEL=${LEVEL:-1}
TOTAL=${TOTAL:-530}
TORCH_LIMIT=${TORCH_LIMIT:-90}
MIN_TASK=${MIN_TASK:-30}
TASK_LIMIT=${TASK_LIMIT:-$((BUDGET + TORCH_LIMIT + 60))}
DEVICE=${DEVICE:-cuda}
TASKS=${TASKS:-"*"}
RANGE=${RANGE:-}
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
mkdir -p "$OUT/suite"
t0=$(date +%s)
log() { echo "== $*" >&2; }

# the slice: sorted task names, filtered by TASKS, cut by RANGE
names=()
for f in $(ls "$SUITE" | LC_ALL=C sort); do
  case $f in *.py) ;; *) continue ;; esac
  case $f in *.opt.py) continue ;; esac
  n=${f%.py}
  for p in $TASKS; do
    # shellcheck disable=SC2254
    case $n in $p) names+=("$n"); break ;; esac
  done
done
if [ -n "$RANGE" ]; then
  from=${RANGE%%:*}
  to=${RANGE##*:}
  names=("${names[@]:$from:$((to - from))}")
fi
log "suite slice: ${#names[@]} tasks: ${names[*]}"
{ echo "date: $(date -u)"; echo "settings: BUDGET=$BUDGET ROUNDS=$ROUNDS CANDS=$CANDS LEVEL=$LEVEL \
TOTAL=$TOTAL TASK_LIMIT=$TASK_LIMIT DEVICE=$DEVICE TASKS=$TASKS RANGE=$RANGE"; echo "tasks: ${names[*]}"; } \
  > "$OUT/suite/settings.txt"

# the device's ceilings, measured once (cached by the harness) and read by every task
CEIL=()
if [ "$DEVICE" = cuda ] && [ -z "${TDX_TEST_TIMER:-}" ]; then
  log "ceilings"
  if timeout 300 python3 -m tritondx_harness ceilings > "$OUT/suite/ceilings.json" 2> "$OUT/suite/ceilings.err"; then
    CEIL=(--ceilings "$OUT/suite/ceilings.json")
  fi
fi

# one row in a results file for a task that left none
row() { # name status seconds
  printf '{"schema": "tritondx/bench", "version": 1, "rows": [{"task": "%s.py", "status": "%s", "seconds": %s}]}\n' \
    "$1" "$2" "$3" > "$OUT/suite/$1/results.json"
}

for n in "${names[@]}"; do
  mkdir -p "$OUT/suite/$n"
  left=$((TOTAL - ($(date +%s) - t0)))
  if [ "$left" -lt "$MIN_TASK" ]; then
    log "$n: not started ($left s left, a task needs about $MIN_TASK s)"
    row "$n" "not run: out of time in this call" 0
    continue
  fi
  limit=$((left < TASK_LIMIT ? left : TASK_LIMIT))
  log "bench $n (limit $limit s, $left s left)"
  s=$(date +%s)
  timeout -k 10 "$limit" "$TDX" bench --suite "$SUITE" --tasks "$n.py" --out "$OUT/suite/$n" \
    --device "$DEVICE" --budget "$BUDGET" --rounds "$ROUNDS" --candidates "$CANDS" --max-level "$LEVEL" \
    --torch-timeout "$TORCH_LIMIT" "${CEIL[@]}" \
    > "$OUT/suite/$n/stdout.txt" 2> "$OUT/suite/$n/stderr.txt"
  rc=$?
  secs=$(($(date +%s) - s))
  echo "rc=$rc seconds=$secs" >> "$OUT/suite/$n/stderr.txt"
  if [ ! -s "$OUT/suite/$n/results.json" ]; then
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      row "$n" "killed after $secs s (its limit)" "$secs"
    else
      row "$n" "bench failed (exit $rc)" "$secs"
    fi
  fi
  log "$n: rc=$rc, $secs s"
done

files=()
for n in "${names[@]}"; do files+=("$OUT/suite/$n/results.json"); done
if [ "${#files[@]}" -gt 0 ]; then
  timeout 60 "$TDX" bench --merge "${files[@]}" --markdown "$OUT/RESULTS.md" --json "$OUT/results.json" \
    2> "$OUT/merge.err" || log "merge failed (see merge.err)"
  cp "$OUT/RESULTS.md" "$OUT/suite/" 2> /dev/null
  cat "$OUT/RESULTS.md" 2> /dev/null
fi
log "wall $(($(date +%s) - t0)) s"
tar -C "$OUT" -czf "$OUT/suite.tar.gz" suite && rm -rf "$OUT/suite"
