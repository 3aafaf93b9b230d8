#!/usr/bin/env bash
# Build and run one libFuzzer target under ASan+UBSan for a while.
#   scripts/fuzz.sh NAME SECONDS
# Builds fuzz/fuzz_NAME.c in build-fuzz/ (clang, -DTDX_FUZZ=ON
# -DTDX_SANITIZE=ON), runs it over a scratch copy of fuzz/corpus/NAME/ (the
# committed seeds stay untouched), prints execs/s and crashes, and exits
# non-zero when the target crashed. Crash inputs are kept in
# build-fuzz/crashes-NAME/.
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?usage: scripts/fuzz.sh NAME SECONDS}
secs=${2:-60}
if [ ! -f "fuzz/fuzz_${name}.c" ]; then
    echo "fuzz.sh: no fuzz/fuzz_${name}.c" >&2
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
work=$(mktemp -d "${TMPDIR:-/tmp}/tdx-fuzz-${name}.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$build/crashes-${name}"
if [ -d "fuzz/corpus/${name}" ]; then
    cp -R "fuzz/corpus/${name}/." "$work/corpus/"
fi
dict=()
if [ -f "fuzz/${name}.dict" ]; then
    dict=(-dict="fuzz/${name}.dict")
fi
log="$work/log"
rc=0
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/fuzz_${name}" -max_total_time="$secs" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crashes-${name}/" "${dict[@]}" \
    "$work/corpus" >"$log" 2>&1 || rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
crashes=$(grep -c -E '^==[0-9]+==ERROR|runtime error:|deadly signal|^SUMMARY: libFuzzer: timeout' "$log" || true)
echo "fuzz_${name}: ${secs}s, ${execs:-0} execs, ${speed:-0} execs/s, ${crashes} crashes, corpus $(ls "$work/corpus" | wc -l) inputs"
if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    tail -40 "$log" >&2
    echo "fuzz_${name}: FAILED (exit $rc); inputs in $build/crashes-${name}/" >&2
    exit 1
fi
