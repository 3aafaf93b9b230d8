# `tritondx triage` end to end with the real level 0 triage and parser:
# findings on the bundled example in all three formats, and a syntax error
# reported at its line and column.
. "$(dirname "$0")/lib.sh" "$@"

cd "$SRC" || exit 1
run triage examples/softmax.py; expect_rc 1
NCHECKS=$((NCHECKS + 1))
grep -qE '^examples/softmax\.py:[0-9]+:[0-9]+: warning: .+ \[TDX[0-9]{3}\]$' "$TMP/out" ||
    fail "no compiler-style warning line"
expect_out_has "note: kernel 'softmax_kernel': "
expect_out_lacks " | "   # no caret: stdout is not a terminal
LAST_CMD="tritondx triage - <examples/softmax.py"
"$TDX" triage - <examples/softmax.py >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_rc 1
NCHECKS=$((NCHECKS + 1))
grep -qE '^<stdin>:[0-9]+:[0-9]+: warning: .+ \[TDX[0-9]{3}\]$' "$TMP/out" || fail "no <stdin> warning"
run triage --caret=always examples/softmax.py; expect_rc 1
NCHECKS=$((NCHECKS + 1)); grep -qE '^ +[0-9]+ \| ' "$TMP/out" || fail "no source line"
NCHECKS=$((NCHECKS + 1)); grep -qE '^      \| +\^' "$TMP/out" || fail "no caret"

run triage --format json examples/softmax.py; expect_rc 1
expect_json 'any(k["name"] == "softmax_kernel" for k in d["kernels"])'
expect_json 'all(f["rule"].startswith("TDX") and f["location"]["line"] >= 1 for f in d["findings"])'
expect_json 'd["summary"]["warnings"] + d["summary"]["errors"] >= 1'

run triage --format sarif examples/softmax.py; expect_rc 1
expect_json 'd["version"] == "2.1.0" and len(d["runs"][0]["results"]) >= 1'
expect_json 'all(d["runs"][0]["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"] for r in d["runs"][0]["results"])'
expect_json 'all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "examples/softmax.py" for r in d["runs"][0]["results"])'
expect_json 'all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in d["runs"][0]["results"])'

# A syntax error: one `file:line:col: error:` line, exit 3, the other
# inputs still triaged.
printf 'import triton\n\n@triton.jit\ndef k(x_ptr:\n    pass\n' >"$TMP/syntax.py"
run triage "$TMP/syntax.py"; expect_rc 3
NCHECKS=$((NCHECKS + 1))
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "expected one line on stderr"
NCHECKS=$((NCHECKS + 1))
grep -qE "^$TMP/syntax\.py:[0-9]+:[0-9]+: error: " "$TMP/err" || fail "no located error"
run triage --format json "$TMP/syntax.py" examples/softmax.py; expect_rc 3
expect_json '[f["status"] for f in d["files"]] == ["parse error", "ok"]'
expect_json 'len(d["findings"]) >= 1'

# A whole corpus directory: every file in name order, the broken one
# reported and the rest triaged; SARIF results all point into the rules.
run triage --format sarif tests/data/triage; expect_rc 3
expect_err_one_line_messages
expect_err_has "tests/data/triage/syntax_error.py:"
expect_json 'len(d["runs"][0]["results"]) >= 10'
expect_json 'all(d["runs"][0]["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"] for r in d["runs"][0]["results"])'
expect_json '[a["location"]["uri"] for a in d["runs"][0]["artifacts"]] == sorted(a["location"]["uri"] for a in d["runs"][0]["artifacts"])'
done_ok
