# The command line itself: help, unknown commands and options, bad values,
# and `tritondx rules`. Exit codes as README.md documents them.
. "$(dirname "$0")/lib.sh" "$@"

run; expect_rc 2; expect_err_has "usage: tritondx <command>"; expect_out_empty
run --help; expect_rc 0; expect_out_has "usage: tritondx <command>"; expect_out_has "triage"
run frobnicate; expect_rc 2; expect_err "tritondx: error: unknown command 'frobnicate' (see 'tritondx --help')"
run --version; expect_rc 0; expect_out_has "tritondx "

# triage
run triage --help; expect_rc 0; expect_out_has "usage: tritondx triage"; expect_err_empty
run triage -h; expect_rc 0; expect_out_has "--format text|json|sarif"
run triage; expect_rc 2; expect_err "tritondx: error: no input files or directories (see 'tritondx triage --help')"
run triage --frob examples; expect_rc 2
expect_err "tritondx: error: unknown option '--frob' (see 'tritondx triage --help')"
run triage -x examples; expect_rc 2; expect_err_has "unknown option '-x'"
run triage --format xml examples; expect_rc 2
expect_err "tritondx: error: invalid format 'xml' (expected text, json or sarif)"
run triage --format=yaml examples; expect_rc 2; expect_err_has "invalid format 'yaml'"
run triage examples --format; expect_rc 2; expect_err "tritondx: error: option '--format' needs a value"
run triage --color=sometimes examples; expect_rc 2
expect_err "tritondx: error: invalid value 'sometimes' for --color (expected auto, always or never)"
run triage --caret maybe examples; expect_rc 2; expect_err_has "invalid value 'maybe' for --caret"
# A bad option anywhere stops the run before any input is read.
run triage /nonexistent --frob; expect_rc 2; expect_err_lacks "no such file"
# After --, everything is a path.
run triage -- --help; expect_rc 3; expect_err "--help: error: no such file or directory"

# rules
run rules; expect_rc 0; expect_out_has "TDX000"; expect_out_has "parse-error"; expect_out_has "SUMMARY"
run rules TDX000; expect_rc 0; expect_out_has "TDX000 parse-error:"; expect_out_has "the fact behind it:"
expect_out_has "what to change:"
run rules tdx000; expect_rc 0; expect_out_has "TDX000 parse-error:"
run rules parse-error; expect_rc 0; expect_out_has "TDX000 parse-error:"
run rules TDX999; expect_rc 2
expect_err "tritondx: error: unknown rule 'TDX999' (see 'tritondx rules' for the list)"
run rules TDX000 TDX000; expect_rc 2; expect_err_has "one rule at a time"
run rules --frob; expect_rc 2; expect_err_has "unknown option '--frob'"
run rules --markdown TDX000; expect_rc 2
run rules --help; expect_rc 0; expect_out_has "usage: tritondx rules"
run rules --markdown; expect_rc 0
NCHECKS=$((NCHECKS + 1))
diff "$TMP/out" "$SRC/docs/rules.md" >/dev/null ||
    fail "docs/rules.md is stale: run 'build/tritondx rules --markdown > docs/rules.md'"
done_ok
