# Helpers for the CLI tests (sourced, not a test itself).
# Usage in a test: . "$(dirname "$0")/lib.sh" "$@"
set -u
TDX=${1:?usage: test.sh TRITONDX SOURCE_DIR}
SRC=${2:?usage: test.sh TRITONDX SOURCE_DIR}
# Absolute, since tests change directory.
TDX=$(cd "$(dirname "$TDX")" && pwd)/$(basename "$TDX")
SRC=$(cd "$SRC" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tdx_cli.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
NCHECKS=0

fail() {
    echo "FAIL: $*" >&2
    echo "--- command: ${LAST_CMD:-}" >&2
    echo "--- exit status: ${rc:-}" >&2
    echo "--- stdout:" >&2; cat "$TMP/out" >&2 2>/dev/null
    echo "--- stderr:" >&2; cat "$TMP/err" >&2 2>/dev/null
    exit 1
}

# run ARGS...: run tritondx; stdout in $TMP/out, stderr in $TMP/err, status in $rc.
run() {
    LAST_CMD="tritondx $*"
    "$TDX" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
}

expect_rc() { NCHECKS=$((NCHECKS + 1)); [ "$rc" = "$1" ] || fail "expected exit status $1"; }
# The exact stderr, line for line.
expect_err() {
    NCHECKS=$((NCHECKS + 1))
    printf '%s\n' "$@" | diff - "$TMP/err" >/dev/null || fail "expected stderr: $(printf '%s|' "$@")"
}
expect_err_has() { NCHECKS=$((NCHECKS + 1)); grep -qF -- "$1" "$TMP/err" || fail "stderr lacks: $1"; }
expect_out_has() { NCHECKS=$((NCHECKS + 1)); grep -qF -- "$1" "$TMP/out" || fail "stdout lacks: $1"; }
expect_out_lacks() { NCHECKS=$((NCHECKS + 1)); ! grep -qF -- "$1" "$TMP/out" || fail "stdout has: $1"; }
expect_err_lacks() { NCHECKS=$((NCHECKS + 1)); ! grep -qF -- "$1" "$TMP/err" || fail "stderr has: $1"; }
expect_out_empty() { NCHECKS=$((NCHECKS + 1)); [ ! -s "$TMP/out" ] || fail "stdout not empty"; }
expect_err_empty() { NCHECKS=$((NCHECKS + 1)); [ ! -s "$TMP/err" ] || fail "stderr not empty"; }
# Every stderr line is one message: `path[:line:col]: severity: text`.
expect_err_one_line_messages() {
    NCHECKS=$((NCHECKS + 1))
    if grep -vE '^[^ ]+(:[0-9]+:[0-9]+)?: (error|warning|note): [^ ]' "$TMP/err" >/dev/null; then
        fail "stderr has a line that is not a one-line message"
    fi
}
# A Python assertion over the stdout parsed as JSON (bound to `d`).
expect_json() {
    NCHECKS=$((NCHECKS + 1))
    python3 -S - "$TMP/out" "$1" <<'PY' || fail "JSON check failed: $1"
import json, sys
d = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"d": d})
if not ok:
    sys.exit(1)
PY
}
done_ok() { echo "ok: $NCHECKS checks"; exit 0; }
