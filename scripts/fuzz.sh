#!/usr/bin/env bash
# Build and run one libFuzzer target under ASan+UBSan.
#   scripts/fuzz.sh NAME SECONDS          a bounded run (the ctest fuzz group)
#   scripts/fuzz.sh --long NAME EXECS [MAX_SECONDS]
#                                         a long run, until EXECS executions
#                                         (or MAX_SECONDS, when given, pass)
#
# Builds fuzz/fuzz_NAME.c in build-fuzz/ (clang, -DTDX_FUZZ=ON
# -DTDX_SANITIZE=ON). Crash and hang inputs are kept in
# build-fuzz/crashes-NAME/. fuzz/NAME.dict is used when it exists.
#
# A bounded run fuzzes a scratch copy of fuzz/corpus/NAME/ (the committed
# seeds stay untouched), prints execs/s and crashes, and exits non-zero when
# the target crashed, hung or leaked.
#
# A long run keeps its corpus in build-fuzz/long-NAME/ (seeded from
# fuzz/corpus/NAME/, kept between runs so a later run goes on from there).
# A crash or a hang (an input running past -timeout=10 s) does not end it:
# the input is saved, counted, and fuzzing resumes with the executions left.
# At the end it prints one line: target, executions, seconds, crashes,
# hangs, peak RSS (MB), corpus size, date, and whether the time limit cut
# it short; exit 1 when anything was found.
#
# FUZZ_MAX_LEN (bytes, default 65536) caps the input size: a target whose
# cost grows with the input (llm_extract parses a reply three times) runs
# many more executions with a smaller cap; say so where the run is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
long=0
if [ "${1:-}" = "--long" ]; then
    long=1
    shift
fi
name=${1:?usage: scripts/fuzz.sh [--long] NAME SECONDS|EXECS}
amount=${2:-60}
max_secs=${3:-0}
if [ ! -f "fuzz/fuzz_${name}.c" ]; then
    echo "fuzz.sh: no fuzz/fuzz_${name}.c" >&2
    exit 2
fi
if ! [[ "$amount" =~ ^[0-9]+$ ]] || [ "$amount" -eq 0 ] || ! [[ "$max_secs" =~ ^[0-9]+$ ]]; then
    echo "fuzz.sh: ${2:-} ${3:-} is not a positive number" >&2
    exit 2
fi
if ! command -v clang >/dev/null; then
    echo "fuzz.sh: clang is needed (scripts/setup.sh installs it)" >&2
    exit 2
fi
build=build-fuzz
mkdir -p "$build"
# several targets may be built at once (ctest -j): one build at a time
(
    flock 9
    if [ ! -f "$build/build.ninja" ]; then
        CC=clang cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            -DTDX_FUZZ=ON -DTDX_SANITIZE=ON -DTDX_TESTS=OFF >/dev/null
    fi
    ninja -C "$build" "fuzz_${name}" >/dev/null
) 9>"$build/.lock"
crashdir="$build/crashes-${name}"
mkdir -p "$crashdir"
opts=(-max_len="${FUZZ_MAX_LEN:-65536}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix="$crashdir/")
if [ -f "fuzz/${name}.dict" ]; then
    opts+=(-dict="fuzz/${name}.dict")
fi
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
bin="$build/fuzz/fuzz_${name}"
# one libFuzzer log -> "execs crash hang peak_rss_mb"
scan() {
    local log=$1 execs rss crash=0 hang=0
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ -z "$execs" ]; then # killed before the final stats: the last status line
        execs=$(grep -o -E '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    fi
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    if [ -z "$rss" ]; then
        rss=$(grep -o -E 'rss: [0-9]+Mb' "$log" | tail -1 | grep -o -E '[0-9]+')
    fi
    if grep -q -E '^SUMMARY: libFuzzer: timeout|^==[0-9]+== ERROR: libFuzzer: timeout' "$log"; then
        hang=1
    elif grep -q -E '^==[0-9]+== ?ERROR|runtime error:|deadly signal|^SUMMARY: libFuzzer' "$log"; then
        crash=1
    fi
    echo "${execs:-0} $crash $hang ${rss:-0}"
}

if [ "$long" -eq 0 ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/tdx-fuzz-${name}.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    mkdir -p "$work/corpus"
    if [ -d "fuzz/corpus/${name}" ]; then
        cp -R "fuzz/corpus/${name}/." "$work/corpus/"
    fi
    log="$work/log"
    rc=0
    "$bin" -max_total_time="$amount" "${opts[@]}" "$work/corpus" >"$log" 2>&1 || rc=$?
    read -r execs crash hang rss < <(scan "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    echo "fuzz_${name}: ${amount}s, ${execs} execs, ${speed:-0} execs/s, $((crash + hang)) crashes, corpus $(ls "$work/corpus" | wc -l) inputs"
    if [ "$rc" -ne 0 ] || [ "$crash" -ne 0 ] || [ "$hang" -ne 0 ]; then
        tail -40 "$log" >&2
        echo "fuzz_${name}: FAILED (exit $rc); inputs in $crashdir/" >&2
        exit 1
    fi
    exit 0
fi

# --long: until $amount executions, going on past crashes and hangs
corpus="$build/long-${name}"
mkdir -p "$corpus"
if [ -d "fuzz/corpus/${name}" ]; then
    cp -R -n "fuzz/corpus/${name}/." "$corpus/"
fi
log=$(mktemp "${TMPDIR:-/tmp}/tdx-fuzz-long-${name}.XXXXXX")
trap 'rm -f "$log"' EXIT
total=0 crashes=0 hangs=0 peak=0 cut=""
start=$(date +%s)
while [ "$total" -lt "$amount" ]; do
    left=$((amount - total))
    limit=()
    if [ "$max_secs" -gt 0 ]; then
        secs_left=$((max_secs - ($(date +%s) - start)))
        if [ "$secs_left" -le 0 ]; then
            cut=", cut at the time limit"
            break
        fi
        limit=(-max_total_time="$secs_left")
    fi
    "$bin" -runs="$left" "${limit[@]}" "${opts[@]}" "$corpus" >"$log" 2>&1 || true
    read -r execs crash hang rss < <(scan "$log")
    total=$((total + execs))
    crashes=$((crashes + crash))
    hangs=$((hangs + hang))
    [ "$rss" -gt "$peak" ] && peak=$rss
    if [ "$crash" -ne 0 ] || [ "$hang" -ne 0 ]; then
        grep -E 'runtime error:|^==[0-9]+== ?ERROR|^SUMMARY|Test unit written' "$log" | head -5 >&2
    elif [ "$execs" -eq 0 ]; then
        tail -20 "$log" >&2
        echo "fuzz_${name}: the fuzzer made no progress" >&2
        exit 2
    fi
    # a run that stops on every input would never end
    if [ $((crashes + hangs)) -ge 20 ]; then
        echo "fuzz_${name}: stopped after 20 crashes or hangs" >&2
        break
    fi
done
secs=$(( $(date +%s) - start ))
if [ "$max_secs" -gt 0 ] && [ "$total" -lt "$amount" ] && [ "$secs" -ge "$max_secs" ]; then
    cut=", cut at the time limit"
fi
echo "fuzz_${name}: ${total} execs, ${secs} s, ${crashes} crashes, ${hangs} hangs, peak RSS ${peak} MB, corpus $(ls "$corpus" | wc -l) inputs, $(date -u +%Y-%m-%d)${cut}"
[ "$crashes" -eq 0 ] && [ "$hangs" -eq 0 ]
