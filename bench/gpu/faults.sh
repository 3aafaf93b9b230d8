#!/usr/bin/env bash
# Fault injection on the GPU (docs/faults.md): hostile candidates through the
# real `tritondx optimize` loop -- a canned LLM server (build/tests/tdx_llm_server)
# replies with the hostile code -- plus the harness's `time` verb on a
# candidate that replaces the CUDA event timer once it is being timed.
#
# Prints a table (fault, contained, reason, files lost) and packs every raw
# output into $OUT/faults.tar.gz. Each step runs under `timeout`, cases run
# PAR at a time and none starts after DEADLINE seconds, so the whole script
# stays under 8 minutes (at worst two waves of CASE_TIMEOUT + 30 s).
#
# Usage, from the repository root with build/ built:
#   bash bench/gpu/faults.sh
#   DEVICE=cpu CASES="nan zeros" bash bench/gpu/faults.sh   # dry run without a GPU
set -u
ROOT=$PWD
OUT=${OUT:-/tmp/tdx-faults-out}
DEVICE=${DEVICE:-cuda}
PAR=${PAR:-6}
CHILD_TIMEOUT=${CHILD_TIMEOUT:-60}
CASE_TIMEOUT=${CASE_TIMEOUT:-180}
DEADLINE=${DEADLINE:-200}
CASES=${CASES:-"control illegal_access hang_kernel huge_gpu_memory out_of_bounds far_out_of_bounds nan zeros unwritten_tail patch_timer late_timer_patch"}
CLI=$ROOT/build/tritondx
SERVER=$ROOT/build/tests/tdx_llm_server
WORK=$(mktemp -d /tmp/tdx-faults-XXXXXX)
RAW=$OUT/raw
mkdir -p "$RAW"
export PYTHONPATH=$ROOT/python PYTHONUNBUFFERED=1
unset TRITONDX_LLM_URL TRITONDX_LLM_MODEL TRITONDX_LLM_KEY OPENAI_API_KEY
if [ "$DEVICE" = cpu ]; then
  export TDX_TEST_TIMER=$ROOT/tests/helpers/model_timer.py CUDA_VISIBLE_DEVICES=
fi
START=$(date +%s)

{
  echo "date: $(date -u)"; uname -a
  timeout 30 nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 | head -3
  timeout 60 python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)' 2>&1
  echo "landlock abi: $(timeout 10 python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>&1)"
  echo "userns: $(timeout 10 unshare -Urn true 2>&1 && echo ok)"
} > "$RAW/env.txt" 2>&1

# where the source of each case lives
case_file() {
  for d in gpu candidates; do
    if [ -f "$ROOT/tests/faults/$d/$1.py" ]; then echo "$ROOT/tests/faults/$d/$1.py"; return; fi
  done
}

# sha256 of every file under a folder except optimize's own outputs and the
# caches that tritondx's own unsandboxed steps fill in $HOME (the ceilings,
# Triton's and CUDA's compile caches of the baseline timing)
digest() {
  (cd "$1" && find . -path ./task.tdx -prune -o -name task.opt.py -prune -o -path ./.cache/tritondx -prune \
     -o -path ./.triton -prune -o -path ./.nv -prune -o -type f -print0 |
     sort -z | xargs -0 -r sha256sum)
}

# One case: a user folder and a home, the canned server, optimize, --resume.
run_case() {
  local name=$1 w=$WORK/$1 src
  mkdir -p "$w/project/data" "$w/home/.ssh" "$w/replies"
  cp "$ROOT/tests/faults/task.py" "$w/project/task.py"
  echo "the user's notes" > "$w/project/notes.txt"
  head -c 4096 /dev/urandom > "$w/project/data/weights.bin"
  echo "# the user's shell setup" > "$w/home/.bashrc"
  digest "$w/project" > "$w/before.project"; digest "$w/home" > "$w/before.home"
  local llm=()
  if [ "$name" != control ]; then
    src=$(case_file "$name")
    python3 - "$src" "$w/project" "$w/replies/hostile.http" <<'EOF'
import json, sys
code = open(sys.argv[1]).read().replace("@TASKDIR@", sys.argv[2]).replace("@PORT@", "9").replace("@MARKER@", "tdx-fault-orphan")
body = json.dumps({"id": "x", "object": "chat.completion", "model": "canned-model",
                   "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
                               "content": "```python\n" + code + "```\n"}}],
                   "usage": {"prompt_tokens": 100, "completion_tokens": 100}})
open(sys.argv[3], "w").write("HTTP/1.1 200 OK\nContent-Type: application/json\n\n" + body)
EOF
    # the server answers one request and ends by itself after 60 s
    "$SERVER" -d "$w/replies" -l "$w/requests.log" hostile > "$w/server.out" 2> "$w/server.err" &
    local spid=$!
    for _ in $(seq 50); do grep -q port "$w/server.out" 2>/dev/null && break; sleep 0.1; done
    local port; port=$(awk '/port/ {print $2}' "$w/server.out")
    llm=(--llm-url "http://127.0.0.1:$port/v1" --llm-model canned-model)
  fi
  local t0; t0=$(date +%s)
  HOME=$w/home TRITONDX_CANDIDATE_TIMEOUT=$CHILD_TIMEOUT timeout "$CASE_TIMEOUT" \
    "$CLI" optimize --device "$DEVICE" --rounds 1 --candidates 2 --max-level 0 --no-progress \
    "${llm[@]}" "$w/project/task.py" > "$w/stdout" 2> "$w/stderr"
  echo $? > "$w/rc"
  HOME=$w/home TRITONDX_CANDIDATE_TIMEOUT=$CHILD_TIMEOUT timeout 30 \
    "$CLI" optimize --device "$DEVICE" --rounds 1 --candidates 2 --max-level 0 --no-progress \
    "${llm[@]}" --resume "$w/project/task.py" > "$w/resume.stdout" 2> "$w/resume.stderr"
  echo $? > "$w/resume.rc"
  echo $(( $(date +%s) - t0 )) > "$w/seconds"
  [ -n "${spid:-}" ] && { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }
  digest "$w/project" > "$w/after.project"; digest "$w/home" > "$w/after.home"
  cp "$w/project/task.tdx/journal.jsonl" "$w/journal.jsonl" 2>/dev/null
  return 0
}

# The time verb alone on a candidate that swaps the timer after 40 calls:
# the candidate never went through check here, so only timing can refuse it.
run_time_verb() {
  local w=$WORK/time_verb
  mkdir -p "$w"
  local t0; t0=$(date +%s)
  (cd "$w" && timeout 240 python3 -m tritondx_harness time --task "$ROOT/tests/faults/task.py" \
     --candidate "$ROOT/tests/faults/gpu/late_timer_patch.py" --no-reference --budget-ms 100 \
     > "$w/reply.json" 2> "$w/stderr")
  echo $? > "$w/rc"
  echo $(( $(date +%s) - t0 )) > "$w/seconds"
}

if [ "$DEVICE" = cuda ]; then run_time_verb & fi
running=0
for c in $CASES; do
  if [ "$c" != control ] && [ -z "$(case_file "$c")" ]; then echo "no such case: $c" >&2; continue; fi
  if [ $(( $(date +%s) - START )) -gt "$DEADLINE" ]; then echo "not started (deadline): $c" >&2; continue; fi
  run_case "$c" &
  running=$((running + 1))
  if [ "$running" -ge "$PAR" ]; then wait -n; running=$((running - 1)); fi
done
wait
# no case here forks; a stray from a changed case would be killed by its id:
for p in $(grep -l tdx-fault-orphan /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3); do kill -9 "$p" 2>/dev/null; done

python3 - "$WORK" $CASES <<'EOF' | tee "$RAW/table.md"
import json, os, sys
work, cases = sys.argv[1], sys.argv[2:]
rows, tried, ok_n, lost_n = [], 0, 0, 0
def read(p, default=""):
    try:
        return open(p).read()
    except OSError:
        return default
for name in cases:
    w = os.path.join(work, name)
    if not os.path.isdir(w):
        continue
    tried += 1
    rc = read(f"{w}/rc", "?").strip()
    rrc = read(f"{w}/resume.rc", "?").strip()
    lost = [l for l in set(read(f"{w}/before.project").splitlines()) ^ set(read(f"{w}/after.project").splitlines())]
    lost += [l for l in set(read(f"{w}/before.home").splitlines()) ^ set(read(f"{w}/after.home").splitlines())]
    nlost = len({l.split()[-1] for l in lost})
    entries, valid = [], True
    for line in read(f"{w}/journal.jsonl").splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            valid = False
    llm = [e for e in entries if e.get("type") == "candidate" and e.get("origin") == "llm"]
    verdict = llm[0].get("verdict") if llm else None
    reason = (llm[0].get("reason") or "") if llm else ""
    if name == "control":
        base = [e for e in entries if e.get("type") == "baseline"]
        good = rc == "0" and base and valid
        reason = f"baseline {base[0]['median_s'] * 1e3:.4g} ms, kept {sum(e.get('type') == 'keep' for e in entries)}" \
            if base else (read(f"{w}/stderr").strip().splitlines() or ["no baseline"])[-1]
    else:
        good = rc == "0" and verdict == "rejected" and valid and rrc == "0" and nlost == 0
    ok_n += bool(good)
    lost_n += nlost
    rows.append(f"| {name} | {'yes' if good else 'NO'} | {reason[:150]} | {nlost} | rc {rc}, resume {rrc}, "
                f"{read(f'{w}/seconds', '?').strip()} s |")
w = os.path.join(work, "time_verb")
if os.path.isdir(w):
    tried += 1
    try:
        rep = json.loads(read(f"{w}/reply.json"))
    except ValueError:
        rep = {}
    good = rep.get("ok") is False and rep.get("reason") == "tampered"
    ok_n += good
    rows.append(f"| time verb: late_timer_patch | {'yes' if good else 'NO'} | {str(rep.get('error', read(f'{w}/stderr')[-150:]))[:150]} | 0 | "
                f"rc {read(f'{w}/rc', '?').strip()}, {read(f'{w}/seconds', '?').strip()} s |")
print("| fault | contained | reason | files lost | run |")
print("|---|---|---|---|---|")
print("\n".join(rows))
print(f"\nfaults tried: {tried}, contained: {ok_n}, files lost: {lost_n}")
EOF
echo "total seconds: $(( $(date +%s) - START ))" | tee -a "$RAW/table.md"
# every case's outputs, without the big or binary ones
(cd "$WORK" && find . -name weights.bin -delete; find . -name '*.http' -delete)
cp -r "$WORK" "$RAW/work"
tar -C "$OUT" -czf "$OUT/faults.tar.gz" raw && rm -rf "$RAW" "$WORK"
