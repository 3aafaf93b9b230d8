# `tritondx triage` on bad input, tried as a new user would: a missing path,
# a binary file, an empty file, Python with no kernel, a file too large, an
# unreadable file, a directory of mixed files. Each gets one clear line on
# stderr and the documented exit code; stdout stays valid JSON/SARIF.
. "$(dirname "$0")/lib.sh" "$@"
cd "$TMP" || exit 1

printf 'import os\n\nprint(os.getcwd())\n' >plain.py
: >empty.py
printf '\177ELF\002\001\001\000\000\000' >bin.py
printf 'x = "\351t\351"\n' >latin1.py

run triage missing.py; expect_rc 3; expect_err "missing.py: error: no such file or directory"
expect_out_has "0 errors, 0 warnings, 0 notes, 0 kernels in 0 files"
run triage bin.py; expect_rc 3
expect_err "bin.py: error: binary file (a NUL byte or invalid UTF-8), not Python source"
run triage latin1.py; expect_rc 3; expect_err_has "latin1.py: error: binary file"
run triage empty.py; expect_rc 0; expect_err "empty.py: note: empty file, nothing to triage"
run triage plain.py; expect_rc 0; expect_err "plain.py: note: no @triton.jit kernel found"
expect_out_has "in 1 file"
run triage /dev/null; expect_rc 3; expect_err "/dev/null: error: not a regular file or directory"

# Standard input, named "-" (once, however often it is named).
LAST_CMD="tritondx triage - - <plain.py"
"$TDX" triage - - <plain.py >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_rc 0; expect_err "<stdin>: note: no @triton.jit kernel found"; expect_out_has "in 1 file"
LAST_CMD="tritondx triage - <bin.py"
"$TDX" triage - <bin.py >"$TMP/out" 2>"$TMP/err"; rc=$?
expect_rc 3; expect_err "<stdin>: error: binary file (a NUL byte or invalid UTF-8), not Python source"

truncate -s 17M big.py
run triage big.py; expect_rc 3; expect_err "big.py: error: file larger than 16 MiB, not read"

if [ "$(id -u)" != 0 ]; then
    printf 'x = 1\n' >secret.py
    chmod 000 secret.py
    run triage secret.py; expect_rc 3; expect_err "secret.py: error: cannot read: permission denied"
    chmod 600 secret.py
fi

# A directory of mixed files: *.py taken in name order at every level;
# hidden directories, __pycache__ and other extensions skipped (they hold
# binary files here, so taking one would show as an error).
mkdir -p tree/sub tree/.venv tree/__pycache__ tree/empty
printf 'x = 1\n' >tree/b.py
printf 'x = 1\n' >tree/A.py
printf 'x = 1\n' >tree/sub/c.py
printf '\000\001' >tree/sub/broken.py
printf '\000\001' >tree/.venv/hidden.py
printf '\000\001' >tree/__pycache__/cached.py
printf '\000\001' >tree/data.bin
printf 'not python at all\n' >tree/notes.txt
run triage tree; expect_rc 3
expect_err "tree/sub/broken.py: error: binary file (a NUL byte or invalid UTF-8), not Python source"
run triage --format json tree; expect_rc 3
expect_json 'd["schema"] == "tritondx/findings" and d["version"] == 1'
expect_json '[f["path"] for f in d["files"]] == ["tree/A.py", "tree/b.py", "tree/sub/broken.py", "tree/sub/c.py"]'
expect_json '[f["status"] for f in d["files"]] == ["ok", "ok", "bad input", "ok"]'
expect_json 'len(d["diagnostics"]) == 1 and d["diagnostics"][0]["severity"] == "error"'
expect_json 'd["diagnostics"][0]["location"]["file"] == "tree/sub/broken.py"'
# Walk order does not depend on how the path was spelled.
run triage --format=json tree/; expect_rc 3
expect_json '[f["path"] for f in d["files"]][0] == "tree/A.py"'
run triage tree/empty; expect_rc 0; expect_err "tree/empty: note: no Python files (*.py) in this directory"

# Good and bad inputs together: every input is processed and reported.
run triage --format sarif missing.py bin.py plain.py tree/sub; expect_rc 3
expect_err_one_line_messages
expect_err_has "missing.py: error: no such file or directory"
expect_err_has "bin.py: error: binary file"
expect_err_has "tree/sub/broken.py: error: binary file"
expect_json 'd["version"] == "2.1.0" and len(d["runs"]) == 1'
expect_json '[a["location"]["uri"] for a in d["runs"][0]["artifacts"]] == ["bin.py", "plain.py", "tree/sub/broken.py", "tree/sub/c.py"]'
expect_json 'd["runs"][0]["invocations"][0]["executionSuccessful"] is False'
expect_json '[n["level"] for n in d["runs"][0]["invocations"][0]["toolExecutionNotifications"]] == ["error", "error", "note", "error"]'

# Colour: only when asked (stderr is not a terminal here), never on stdout JSON.
run triage --color=always missing.py; expect_rc 3
NCHECKS=$((NCHECKS + 1)); grep -q "$(printf '\033')\[1;31merror:" "$TMP/err" || fail "no colour"
run triage --color=never missing.py; expect_rc 3
NCHECKS=$((NCHECKS + 1)); ! grep -q "$(printf '\033')" "$TMP/err" || fail "unexpected colour"
run triage --color=always --format json plain.py; expect_rc 0
NCHECKS=$((NCHECKS + 1)); ! grep -q "$(printf '\033')" "$TMP/out" || fail "colour in JSON"
expect_json 'd["files"][0]["status"] == "ok"'
NO_COLOR=1 run triage missing.py
NCHECKS=$((NCHECKS + 1)); ! grep -q "$(printf '\033')" "$TMP/err" || fail "colour despite NO_COLOR"

# The commands that take one task file say what is wrong with it in triage's
# words, before anything runs (and before what the machine lacks: no GPU).
mkdir -p adir
cp plain.py notes.txt
for cmd in check diagnose attribute analyze optimize profile "rewrite --family retune"; do
    # shellcheck disable=SC2086 # the family option is two words
    run $cmd missing.py; expect_rc 3; expect_err "missing.py: error: no such file or directory"
    # shellcheck disable=SC2086
    run $cmd bin.py; expect_rc 3
    expect_err "bin.py: error: binary file (a NUL byte or invalid UTF-8), not Python source"
    # shellcheck disable=SC2086
    run $cmd adir; expect_rc 3; expect_err "adir: error: is a directory, not a task file"
    # shellcheck disable=SC2086
    run $cmd notes.txt; expect_rc 3; expect_err "notes.txt: error: not a Python file (expected a .py source file)"
done
run diagnose -; expect_rc 2 # an option-like argument: a usage error
# Python with no kernel: nothing for any level, said once before a capture runs
run diagnose plain.py; expect_rc 3; expect_err "plain.py: error: no @triton.jit kernel found: nothing to diagnose"

# A kernel file alone, no task around it: level 0 reads it, levels 1-3 say
# why they do not run it (no error), and the commands that run a task refuse
# it in one line, optimize and profile before they ask for a GPU.
printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)\n' >kernel_only.py
run diagnose --all-levels kernel_only.py; expect_rc 0
NCHECKS=$((NCHECKS + 1)); ! grep -q ': error: ' "$TMP/err" || fail "an error line for a kernel file"
for lv in 1 2 3; do
    expect_out_has "level $lv: skipped: not a task: the file defines no launch, reference or make_inputs, and this level runs the kernel through them (README, \"Task format\")"
done
NOTASK="kernel_only.py: error: not a task: the file defines no launch, reference or make_inputs, and"
run optimize kernel_only.py; expect_rc 3
expect_err "$NOTASK optimize checks and times the kernel through them (README, \"Task format\")"
run profile kernel_only.py; expect_rc 3
expect_err "$NOTASK profile times the kernel through them (README, \"Task format\")"
for cmd in attribute analyze; do
    run $cmd kernel_only.py; expect_rc 3
    expect_err "$NOTASK $cmd compiles the kernel through them (README, \"Task format\")"
done

# A task without reference: an input error that says what is missing, the
# same the second time (its run stopped before a baseline: nothing in the
# way, nothing to resume).
sed '/^def reference/,/^$/d' "$SRC/tests/data/tasks/add.py" >noref.py
NCHECKS=$((NCHECKS + 1)); ! grep -q reference noref.py || fail "noref.py still has a reference"
export TDX_TEST_TIMER="$SRC/tests/helpers/model_timer.py"
for i in 1 2; do
    run optimize --device cpu --quiet noref.py; expect_rc 3
    expect_err "noref.py: error: the task cannot be used: no \`reference(*inputs)\` function"
done
unset TDX_TEST_TIMER

# A kernel that does not compile: one error, at its line, captured once for
# levels 2 and 3 (level 3 says the same failure without a second try; every
# level runs: level 0 decides this task by its 8192 programs of 128 elements).
sed 's/x + y, mask=mask)/x + undefined_name, mask=mask)/' "$SRC/tests/data/tasks/add.py" >nocompile.py
run diagnose --all-levels nocompile.py
NCHECKS=$((NCHECKS + 1)); [ "$(grep -c ': error: ' "$TMP/err")" = 1 ] || fail "not one error line"
expect_err_has "nocompile.py: error: add_kernel does not compile: CompilationError: NameError('undefined_name is not defined') at "
expect_err_has "/nocompile.py:13:32: \`tl.store(z_ptr + offs, x + undefined_name, mask=mask)\`"

# Output that cannot be written is a failure, not a clean run.
if [ -w /dev/full ]; then
    LAST_CMD="tritondx triage --format json plain.py >/dev/full"
    "$TDX" triage --format json plain.py >/dev/full 2>"$TMP/err"; rc=$?
    expect_rc 4; expect_err_has "tritondx: error: cannot write the output"
fi
done_ok
