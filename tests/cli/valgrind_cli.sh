#!/usr/bin/env bash
# The CLI over the test corpus under valgrind: every command that runs
# without a GPU, on good and bad inputs, must end with its usual exit status
# and no invalid access, no use of uninitialised memory and no definite or
# indirect leak. The Python children are not traced (--trace-children=no);
# levels 2 and 3 get their capture from tests/cli/valgrind_harness.sh, which
# answers with an IR fixture instead of compiling with Triton.
#   bash tests/cli/valgrind_cli.sh TRITONDX SOURCE_DIR
set -u
TDX=${1:?usage: valgrind_cli.sh TRITONDX SOURCE_DIR}
SRC=${2:?usage: valgrind_cli.sh TRITONDX SOURCE_DIR}
TDX=$(cd "$(dirname "$TDX")" && pwd)/$(basename "$TDX")
SRC=$(cd "$SRC" && pwd)
cd "$SRC"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tdx_vg.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export NO_COLOR= TERM=dumb CUDA_VISIBLE_DEVICES=
NRUNS=0

VG=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect --trace-children=no --child-silent-after-fork=yes
    --log-file="$TMP/vg.log")
# TDX_VG_NATIVE=1: the same runs without valgrind (to check the statuses fast)
if [ -n "${TDX_VG_NATIVE:-}" ]; then
    VG=()
fi

# vg RCS [ENV=VALUE...] -- ARGS...: run tritondx ARGS under valgrind (stdin
# from $STDIN or /dev/null); RCS is the exit statuses allowed, e.g. "0|1".
vg() {
    local rcs=$1 env=()
    shift
    while [ "$1" != "--" ]; do
        env+=("$1")
        shift
    done
    shift
    NRUNS=$((NRUNS + 1))
    local rc=0 t0=$SECONDS
    env "${env[@]}" "${VG[@]}" "$TDX" "$@" <"${STDIN:-/dev/null}" >"$TMP/out" 2>"$TMP/err" || rc=$?
    if [ -n "${TDX_VG_NATIVE:-}" ]; then
        echo "$rc ($rcs): $*"
        return
    fi
    # valgrind's own warnings (a syscall it does not know, such as
    # pidfd_open, which tdx_proc falls back from) are not errors: 99 is
    if [ "$rc" = 99 ] || ! [[ "$rc" =~ ^($rcs)$ ]]; then
        echo "FAIL: tritondx $* (exit $rc, expected $rcs)" >&2
        echo "--- valgrind:" >&2
        cat "$TMP/vg.log" >&2
        echo "--- stderr (tail):" >&2
        tail -20 "$TMP/err" >&2
        exit 1
    fi
    if [ -n "${TDX_VG_TIMES:-}" ]; then
        echo "$((SECONDS - t0)) s: $*"
    fi
}

FAKE=(TDX_PYTHON="$SRC/tests/cli/valgrind_harness.sh")
TWOPASS=tests/data/analyze/ir/twopass
LOSTDIV=(TDX_FAKE_IR="$SRC/tests/data/ir/scale_rows_lostdiv")

# the command line itself
vg 0 -- --help
vg 0 -- --version
vg 2 -- no-such-command
for c in triage check profile attribute analyze diagnose optimize bench rewrite ceilings rules; do
    vg 0 -- "$c" --help
done
vg 2 -- triage --no-such-option

# level 0 over the corpus, in every format
vg 3 -- triage tests/data/triage
vg 3 -- triage --format json tests/data/triage examples
vg 0\|1 -- triage --format sarif bench/tasks
vg 3 -- triage --caret always --color always tests/data/source tests/data/tasks
vg 0\|1\|3 -- triage tests/data/source/bad
STDIN=examples/softmax.py vg 0\|1 -- triage -
STDIN="$TDX" vg 3 -- triage -
vg 3 -- triage no/such/file.py
vg 3 -- triage "$TDX"

# rules
vg 0 -- rules
vg 0 -- rules TDX001
vg 0 -- rules --markdown
vg 2\|3 -- rules TDX999

# rewrites
vg 0 -- rewrite --list
vg 0\|1 -- rewrite --list examples/softmax.py
for fam in retune pipelining tensor-cores exp2 alignment-hints remove-launch-passes grouped-order; do
    vg 0\|1\|4 -- rewrite --family "$fam" --diff --out-dir "$TMP/rw" examples/softmax.py
done
vg 0\|1\|4 -- rewrite --family tensor-cores --diff --out-dir "$TMP/rw" tests/data/analyze/tasks/ieee_dot.py
vg 0\|1\|4 -- rewrite --family alignment-hints --diff --out-dir "$TMP/rw" tests/data/analyze/tasks/lostdiv.py
vg 0\|1\|4 -- rewrite --family retune --out-dir "$TMP/rw" tests/data/analyze/tasks/bigblock.py
vg 2 -- rewrite --family no-such-family examples/softmax.py
vg 3 -- rewrite --family retune no/such/task.py

# check on bad inputs (the real harness validates them)
vg 3 -- check no/such/task.py
vg 3 -- check --validate-only tests/data/tasks/syntax_error.py
vg 3 -- check --validate-only tests/data/tasks/no_reference.py
vg 3 -- check --validate-only --json tests/data/tasks/not_python.txt
vg 0 -- check --validate-only tests/data/tasks/add.py
vg 2 -- check --device tpu tests/data/tasks/add.py

# levels 2 and 3 on a canned capture; level 1 says there is no GPU
vg 0\|1 "${FAKE[@]}" TDX_FAKE_IR="$SRC/$TWOPASS" -- attribute "$TWOPASS/twopass.py"
vg 0\|1 "${FAKE[@]}" TDX_FAKE_IR="$SRC/$TWOPASS" -- attribute --format json "$TWOPASS/twopass.py"
vg 0\|1 "${FAKE[@]}" TDX_FAKE_IR="$SRC/$TWOPASS" -- analyze --format sarif "$TWOPASS/twopass.py"
vg 0\|1 "${FAKE[@]}" "${LOSTDIV[@]}" -- analyze --max-compiles 2 tests/data/analyze/tasks/lostdiv.py
vg 0\|1 "${FAKE[@]}" "${LOSTDIV[@]}" -- diagnose --all-levels tests/data/analyze/tasks/lostdiv.py
vg 0\|1 "${FAKE[@]}" "${LOSTDIV[@]}" -- diagnose --format json tests/data/analyze/tasks/lostdiv.py
vg 1\|3\|4 "${FAKE[@]}" -- profile tests/data/analyze/tasks/lostdiv.py
vg 1\|3\|4 "${FAKE[@]}" -- ceilings
vg 3 "${FAKE[@]}" -- attribute no/such/task.py

# bench results merged; optimize refusing what it cannot run
vg 0 -- bench --merge tests/data/bench/canned.json --markdown "$TMP/bench.md"
vg 3 -- bench --merge no/such/results.json
vg 3 -- optimize no/such/task.py  # the missing file first, then the missing GPU
vg 4 -- optimize examples/softmax.py

echo "ok: $NRUNS runs under valgrind, no error, no leak"
