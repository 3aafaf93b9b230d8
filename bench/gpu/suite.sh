#!/usr/bin/env bash
# `tritondx bench` over a slice of the suite in one call of at most ~9 minutes:
# one `tritondx bench` process per task under its own timeout (a task that hangs
# or overruns costs only its own slot), a row for every task of the slice (run,
# killed, or not reached), the rows merged into $OUT/RESULTS.md and
# $OUT/results.json, every candidate of every run a line in $OUT/digest.txt
# (bench/gpu/journal_digest.py), every run directory packed into
# $OUT/suite.tar.gz.
#
# Usage (from the repository root, build/ carried; see bench/gpu/README.md):
#   PART=1/3 bash bench/gpu/suite.sh             # the first third of the sorted suite
#   RANGE=0:15 bash bench/gpu/suite.sh           # tasks 0..14 of the sorted suite
#   TASKS="softmax_* layernorm" bash bench/gpu/suite.sh
# Then, here: build/tritondx bench --merge A/results.json B/results.json C/results.json --json all.json
#
# Settings (environment):
#   TASKS    shell patterns on task names without .py (default: every task)
#   RANGE    FROM:TO, 0-based, TO exclusive, over the sorted tasks left by TASKS
#   PART     K/N: the K-th of N near-equal parts of those tasks (after RANGE)
#   BUDGET   optimize budget per task, seconds (checked before each round;
#            default 60, and 60 x JOBS with JOBS > 1: the task's own check and
#            timing come first and wait their turn on the GPU — with JOBS=8 and
#            a budget of 60 s, 13 of 90 task runs spent it before round 1)
#   ROUNDS, CANDS, LEVEL   rounds, candidates per round, --max-level
#   REACH_MARGIN  bench --reach-margin, in % (default: bench's 0): how much
#            slower than torch a result may be and still stop at the
#            roofline target
#   TOTAL    wall seconds for the whole call (default 540, under the 600 s of
#            one call); a task starts only when MIN_TASK (30) s are left, and
#            is killed at the end of TOTAL at the latest
#   TASK_LIMIT  hard limit of one task's bench process (BUDGET + TORCH_LIMIT + 60)
#   TORCH_LIMIT limit of the torch baselines' timing of one task (90)
#   STEP_LIMIT  limit of one check or one timing of a candidate (120)
#   DEVICE   cuda (default) or cpu (with TDX_TEST_TIMER: a dry run)
#   SUITE, TDX   the task folder and the binary
#   JOBS     tasks run at once (default 1). With more than one, the harness
#            processes share the GPU through a lock (TRITONDX_GPU_LOCK,
#            python/tritondx_harness/gpulock.py): checks and compiles of
#            different tasks overlap, and every timed measurement runs alone
#            on the GPU. The torch fill is split JOBS ways too.
#   BESIDE   1: after the tasks, the results within 5 % of torch.compile
#            timed side by side with torch eager and torch.compile, one
#            interleaved run each (bench/gpu/beside_torch.py), as
#            $OUT/beside.md; at most BESIDE_LIMIT (150) s after TOTAL.
#            Each run's confirm times torch beside its result already
#            (rows' compile_beside_ms, the summary's "timed beside torch"
#            line); this step only re-times the near ones in a fresh process
#   TORCH_CACHE  the torch columns measured before (bench --torch-cache; default
#            bench/results/torch-CARD.json, CARD the GPU's model as
#            nvidia-smi names it, lower case: h200, h100; a card without one
#            starts from an empty file, filled before the tasks run;
#            DEVICE=cpu: ${TMPDIR:-/tmp}/tdx-torch-cpu.json):
#            a task whose file is unchanged skips its ~22 s of torch
#            baselines; the updated cache comes back as $OUT/torch-cache.json.
#            "" measures every task inside its own run, under TORCH_LIMIT
#            and beside the other JOBS' runs (with JOBS=8 on an H100, 4 of 15
#            tasks timed out there: keep the fill)
#
# Cost of one task, measured on the H200 (bench/RESULTS.md, third session):
#   torch baselines  from the cache when the task file is unchanged (0 s);
#                    else in the slice's one-interpreter fill (bench
#                    --torch-only: one import for all; ~22 s a task when
#                    measured on its own)
#   loop start       the task's own `trial` (check + timing, one interpreter)
#                    ~11-13 s
#   each round       diagnosis: level 0 < 1 s; level 1 an AOT capture (the
#                    ceilings and the best's timing come from the loop)
#                    ~5-8 s; levels 2-3 only when the ones below do not
#                    decide, ~10 s each
#   each candidate   1 `trial`: ~10-12 s of check (interpreter start, every
#                    check shape x 3 seeds, the bench shape) + ~2 s of timing
# Measured before the level-1 reuse: LEVEL=1, CANDS=2, 1 round: 40-63 s a
# task; a task that starts at the roofline target stops after its trial
# (~28 s). With JOBS=4 (2026-12-03): 45 tasks, 2518 s of task runs in two
# calls of 453 s and 330 s (3.2x less wall time than one at a time). BUDGET only guards the start of a round (the task's check and
# baseline come first): ROUNDS is the bound that counts.
set -u
set -f  # TASKS holds patterns: match them against task names, never against files here
OUT=${OUT:-/tmp/tdx-out}
SUITE=${SUITE:-bench/tasks}
TDX=${TDX:-build/tritondx}
JOBS=${JOBS:-1}
BUDGET=${BUDGET:-$((60 * JOBS))}
ROUNDS=${ROUNDS:-1}
CANDS=${CANDS:-1}
LEVEL=${LEVEL:-0}
REACH_MARGIN=${REACH_MARGIN:-}
TOTAL=${TOTAL:-540}
TORCH_LIMIT=${TORCH_LIMIT:-90}
MIN_TASK=${MIN_TASK:-30}
TASK_LIMIT=${TASK_LIMIT:-$((BUDGET + TORCH_LIMIT + 60))}  # TOTAL still ends every task
DEVICE=${DEVICE:-cuda}
STEP_LIMIT=${STEP_LIMIT:-120}
BESIDE=${BESIDE:-0}
BESIDE_LIMIT=${BESIDE_LIMIT:-150}
if [ -z "${TORCH_CACHE+set}" ]; then
  card=h200
  if [ "$DEVICE" = cuda ] && [ -z "${TDX_TEST_TIMER:-}" ]; then
    # "NVIDIA H100 80GB HBM3" -> h100; the suite's tables were measured on h200 and h100
    name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
    card=$(echo "$name" | grep -oiE '\b[a-z][0-9]{2,4}[a-z]?\b' | head -1 | tr 'A-Z' 'a-z')
    [ -n "$card" ] || card=$(echo "$name" | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' '-' | sed 's/^-*//; s/-*$//')
    card=${card:-h200}
  fi
  TORCH_CACHE=bench/results/torch-$card.json
  # a dry run's torch columns (the CPU's) stay out of the committed caches
  [ "$DEVICE" = cuda ] || TORCH_CACHE=${TMPDIR:-/tmp}/tdx-torch-$DEVICE.json
fi
if [ "$JOBS" -gt 1 ]; then
  # outside $OUT: only the results come back from there
  export TRITONDX_GPU_LOCK=${TRITONDX_GPU_LOCK:-/tmp/tdx-gpu.lock}
  : > "$TRITONDX_GPU_LOCK"
  : > "$TRITONDX_GPU_LOCK.turn"
fi
TC=()
if [ -n "$TORCH_CACHE" ]; then
  [ -f "$TORCH_CACHE" ] || echo "{}" > "$TORCH_CACHE"
  TC=(--torch-cache "$TORCH_CACHE")
fi
TASKS=${TASKS:-"*"}
RANGE=${RANGE:-}
PART=${PART:-}
# small graphs compile faster in one thread than with a pool of compile workers to start
export TORCHINDUCTOR_COMPILE_THREADS=${TORCHINDUCTOR_COMPILE_THREADS:-1}
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
if [ -n "$PART" ]; then
  k=${PART%%/*}
  parts=${PART##*/}
  total=${#names[@]}
  from=$(((k - 1) * total / parts))
  to=$((k * total / parts))
  names=("${names[@]:$from:$((to - from))}")
fi
log "suite slice: ${#names[@]} tasks: ${names[*]}"
if [ ! -x "$TDX" ]; then
  log "no $TDX: build it here and carry build/"
  echo "no $TDX" > "$OUT/suite/error.txt"
  tar -C "$OUT" -czf "$OUT/suite.tar.gz" suite
  exit 1
fi
{ echo "date: $(date -u)"; echo "settings: BUDGET=$BUDGET ROUNDS=$ROUNDS CANDS=$CANDS LEVEL=$LEVEL \
TOTAL=$TOTAL TASK_LIMIT=$TASK_LIMIT TORCH_LIMIT=$TORCH_LIMIT STEP_LIMIT=$STEP_LIMIT DEVICE=$DEVICE \
TASKS=$TASKS RANGE=$RANGE PART=$PART JOBS=$JOBS TORCH_CACHE=$TORCH_CACHE REACH_MARGIN=$REACH_MARGIN"; "$TDX" --version 2>&1 | head -1; echo "tasks: ${names[*]}"; } \
  > "$OUT/suite/settings.txt"

# the device's ceilings, measured once (cached by the harness) and read by every task
CEIL=()
if [ "$DEVICE" = cuda ] && [ -z "${TDX_TEST_TIMER:-}" ]; then
  log "ceilings"
  if timeout 300 python3 -m tritondx_harness ceilings > "$OUT/suite/ceilings.json" 2> "$OUT/suite/ceilings.err"; then
    CEIL=(--ceilings "$OUT/suite/ceilings.json")
  fi
fi

# the torch columns the cache lacks, for the whole slice in one interpreter
# (one torch/Dynamo/Inductor import instead of one per task); with JOBS > 1
# the slice is dealt out to JOBS interpreters at once (the timed runs take
# turns on the GPU, the compiles overlap; the cache file takes every one's
# entries)
if [ -n "$TORCH_CACHE" ] && [ ${#names[@]} -gt 0 ]; then
  nfill=$JOBS
  [ "$nfill" -gt ${#names[@]} ] && nfill=${#names[@]}
  limit=$((TORCH_LIMIT * ((${#names[@]} + nfill - 1) / nfill)))
  [ $limit -gt $((TOTAL / 2)) ] && limit=$((TOTAL / 2))
  log "torch baselines the cache lacks ($nfill at once, limit $limit s)"
  s=$(date +%s)
  for ((j = 0; j < nfill; j++)); do
    pats=()
    for ((i = j; i < ${#names[@]}; i += nfill)); do pats+=(--tasks "${names[$i]}.py"); done
    timeout -k 10 "$limit" "$TDX" bench --suite "$SUITE" "${pats[@]}" --torch-only --torch-cache "$TORCH_CACHE" \
      --device "$DEVICE" --torch-timeout "$TORCH_LIMIT" > "$OUT/suite/torch-$j.out" 2> "$OUT/suite/torch-$j.err" &
  done
  wait
  got=""
  for ((j = 0; j < nfill; j++)); do got="$got $(grep -o '[0-9]* measured now' "$OUT/suite/torch-$j.err")"; done
  log "torch baselines: $(($(date +%s) - s)) s:$got"
fi

# end what is left of a task's session (by its session id)
reap() { # sid name
  local pids
  pids=$(ps -eo pid=,sid= | awk -v s="$1" '$2 == s { print $1 }')
  if [ -n "$pids" ]; then
    log "$2: ending what its run left behind: $(echo $pids)"
    kill -KILL $pids 2> /dev/null
  fi
}

# one row in a results file for a task that left none
row() { # name status seconds
  printf '{"schema": "tritondx/bench", "version": 1, "rows": [{"task": "%s.py", "status": "%s", "seconds": %s}]}\n' \
    "$1" "$2" "$3" > "$OUT/suite/$1/results.json"
}

# one task, start to end: its bench process, what it left behind, its row
run_task() { # name limit
  local n=$1 limit=$2 s rc secs sid
  s=$(date +%s)
  # a session of its own: bench's harness children run in process groups of
  # their own, out of timeout's reach, so what is left of the session when
  # bench ends is ended here before the next task uses the GPU
  setsid timeout -k 10 "$limit" "$TDX" bench --suite "$SUITE" --tasks "$n.py" --out "$OUT/suite/$n" \
    --device "$DEVICE" --budget "$BUDGET" --rounds "$ROUNDS" --candidates "$CANDS" --max-level "$LEVEL" \
    --torch-timeout "$TORCH_LIMIT" --step-timeout "$STEP_LIMIT" ${CEIL[@]+"${CEIL[@]}"} ${TC[@]+"${TC[@]}"} \
    ${REACH_MARGIN:+--reach-margin "$REACH_MARGIN"} \
    > "$OUT/suite/$n/stdout.txt" 2> "$OUT/suite/$n/stderr.txt" &
  sid=$!
  wait "$sid"
  rc=$?
  reap "$sid" "$n"
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
}

for n in ${names[@]+"${names[@]}"}; do
  mkdir -p "$OUT/suite/$n"
  # at most JOBS tasks at once
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
  left=$((TOTAL - ($(date +%s) - t0)))
  if [ "$left" -lt "$MIN_TASK" ]; then
    log "$n: not started ($left s left, a task needs about $MIN_TASK s)"
    row "$n" "not run: out of time in this call" 0
    continue
  fi
  limit=$((left < TASK_LIMIT ? left : TASK_LIMIT))
  log "bench $n (limit $limit s, $left s left)"
  run_task "$n" "$limit" &
done
wait

files=()
for n in ${names[@]+"${names[@]}"}; do files+=("$OUT/suite/$n/results.json"); done
if [ "${#files[@]}" -gt 0 ]; then
  timeout 60 "$TDX" bench --merge "${files[@]}" --markdown "$OUT/RESULTS.md" --json "$OUT/results.json" \
    2> "$OUT/suite/merge.err" || log "merge failed (see suite/merge.err)"
  cp "$OUT/RESULTS.md" "$OUT/suite/" 2> /dev/null
  cat "$OUT/RESULTS.md" 2> /dev/null
fi
left_out=""
for n in ${names[@]+"${names[@]}"}; do
  grep -q '"not run: out of time' "$OUT/suite/$n/results.json" 2> /dev/null && left_out="$left_out$n "
done
if [ -n "$left_out" ]; then
  log "not reached in this call; run them with: TASKS=\"${left_out% }\" bash bench/gpu/suite.sh"
  echo "TASKS=\"${left_out% }\"" > "$OUT/not_run.txt"
fi
# the slice's results near torch.compile timed side by side with torch, in
# one interleaved run each (beside_torch.py), after TOTAL
if [ "$BESIDE" = 1 ] && [ "$DEVICE" = cuda ] && [ -z "${TDX_TEST_TIMER:-}" ]; then
  log "side by side with torch (limit $BESIDE_LIMIT s)"
  timeout -k 10 "$BESIDE_LIMIT" python3 bench/gpu/beside_torch.py "$OUT/suite" > "$OUT/beside.md" \
    2> "$OUT/suite/beside.err" || log "beside_torch.py: rc=$? (see beside.err)"
  cat "$OUT/beside.md"
fi
# every candidate of every run, one line each (a call brings back 8 files at most)
python3 bench/gpu/journal_digest.py "$OUT/suite" > "$OUT/digest.txt" 2> "$OUT/suite/digest.err" ||
  log "journal_digest.py: rc=$? (see digest.err)"
log "wall $(($(date +%s) - t0)) s"
[ -n "$TORCH_CACHE" ] && cp "$TORCH_CACHE" "$OUT/torch-cache.json"
tar -C "$OUT" -czf "$OUT/suite.tar.gz" suite && rm -rf "$OUT/suite"
