# tritondx report: where the files go, the formats, and the one-line
# messages for what is not a run, a run cut short, and bad arguments.
. "$(dirname "$0")/lib.sh" "$@"
OPT="$SRC/tests/data/runs/optimize"
BENCH="$SRC/tests/data/runs/bench"

run report --help; expect_rc 0; expect_out_has "usage: tritondx report RUN_DIR"
run report; expect_rc 2; expect_err "tritondx: error: which run? (usage: tritondx report RUN_DIR)"
run report "$OPT" --format pdf; expect_rc 2
expect_err "tritondx: error: --format takes md, html, both or json (got 'pdf')"
run report "$BENCH" --format html --out "$TMP/b"; expect_rc 0; expect_out_lacks ".svg"
run report "$OPT" --frob; expect_rc 2; expect_err_has "bad argument '--frob'"
run report "$OPT" --stdout; expect_rc 2; expect_err_has "--stdout prints one format"

# not a run: one line each, exit 3
run report "$TMP/none"; expect_rc 3
expect_err "tritondx: error: $TMP/none: not a run directory: No such file or directory"
mkdir "$TMP/empty"
run report "$TMP/empty"; expect_rc 3
expect_err "tritondx: error: $TMP/empty: not a run directory: no journal.jsonl (optimize) or results.json (bench)"
run report "$OPT/journal.jsonl"; expect_rc 3; expect_err_has "not a run directory: not a directory"

# both formats into --out (created), the run directory left alone
run report "$OPT" --out "$TMP/o"; expect_rc 0; expect_err_empty
expect_out_has "$TMP/o/report.md"; expect_out_has "$TMP/o/report.html"
NCHECKS=$((NCHECKS + 1)); [ -s "$TMP/o/report.md" ] && [ -s "$TMP/o/report.html" ] || fail "reports missing"
NCHECKS=$((NCHECKS + 1)); [ ! -e "$OPT/report.md" ] || fail "wrote into the canned run"
NCHECKS=$((NCHECKS + 1)); grep -q '<svg id="roofline"' "$TMP/o/report.html" || fail "no roofline in the page"
# the Markdown's chart, as a file next to it
expect_out_has "$TMP/o/report-roofline.svg"
NCHECKS=$((NCHECKS + 1)); grep -q '](report-roofline.svg)' "$TMP/o/report.md" || fail "md lacks the chart"
NCHECKS=$((NCHECKS + 1)); head -c 5 "$TMP/o/report-roofline.svg" | grep -q '<?xml' || fail "chart file"
# the Markdown is the golden file, byte for byte
NCHECKS=$((NCHECKS + 1)); cmp -s "$TMP/o/report.md" "$SRC/tests/data/runs/optimize.golden.md" || fail "md differs from the golden file"

# default: next to the run
cp -r "$OPT" "$TMP/run"
run report "$TMP/run" --format md; expect_rc 0; expect_out_has "$TMP/run/report.md"
expect_out_has "$TMP/run/report-roofline.svg"
NCHECKS=$((NCHECKS + 1)); [ -s "$TMP/run/report.md" ] && [ ! -e "$TMP/run/report.html" ] || fail "--format md"

# one format to stdout
run report "$BENCH" --format json --stdout; expect_rc 0
expect_json 'd["schema"] == "tritondx/report" and d["kind"] == "bench" and len(d["bench"]["results"]) == 2'
run report "$BENCH" --format html --stdout; expect_rc 0; expect_out_has '<svg id="speedups"'
expect_out_has '<section id="ablation">'

# a bench folder with the tasks' own runs: each gets its report, the table links to it
cp -r "$BENCH" "$TMP/bl"; mkdir -p "$TMP/bl/L3/scale"; cp "$OPT/journal.jsonl" "$TMP/bl/L3/scale/"
cp "$OPT/ceilings.json" "$TMP/bl/"
run report "$TMP/bl" --out "$TMP/blo"; expect_rc 0
expect_out_has "$TMP/blo/L3/scale/report.html"; expect_out_has "$TMP/blo/L3/scale/report-roofline.svg"
NCHECKS=$((NCHECKS + 1)); grep -q '<a href="L3/scale/report.html"><code>scale.py</code></a>' "$TMP/blo/report.html" || fail "no link to the task's report"
NCHECKS=$((NCHECKS + 1)); grep -qF '| [scale.py](L3/scale/report.md) |' "$TMP/blo/report.md" || fail "md: no link"
NCHECKS=$((NCHECKS + 1)); ! grep -q 'href="L3/rowsum_loop' "$TMP/blo/report.html" || fail "linked a task without a run"
# a task run that cannot be read is not linked, and says so
printf 'not json\n' > "$TMP/bl/L3/scale/journal.jsonl"
run report "$TMP/bl" --out "$TMP/blo2" --format html; expect_rc 0
expect_err_has "tritondx: warning: $TMP/bl/L3/scale: no report for this task's run"
NCHECKS=$((NCHECKS + 1)); ! grep -q 'href="L3/scale' "$TMP/blo2/report.html" || fail "linked an unreadable run"

# a run killed while writing: reported, with a note on stderr and in the report
head -c 3000 "$OPT/journal.jsonl" > "$TMP/run/journal.jsonl"
run report "$TMP/run" --format md --stdout; expect_rc 0
expect_err_has "tritondx: note: journal.jsonl: the journal was cut short"
expect_err_has "the run has not finished"
expect_out_has "> **Note:** journal.jsonl: the journal was cut short"

# a ceilings file that is not one
run report "$TMP/run" --ceilings "$OPT/journal.jsonl"; expect_rc 3; expect_err_has "cannot read the ceilings"
done_ok
