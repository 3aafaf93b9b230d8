/* Unit tests for the report module's finding renderers: golden files for
 * text, JSON and SARIF over a canned ledger, a structural SARIF check, and
 * the details (carets, colour, escaping, URIs, column units).
 *
 * Regenerate the golden files after an intended change with
 *   TDX_UPDATE_GOLDEN=1 build/tests/test_report
 * and review the diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "finding/finding.h"
#include "report/report.h"
#include "report/report_int.h"

/* Rules for the canned ledger. They live here, not in the table, so that the
 * golden files do not change whenever a real rule's wording does. */
static const tdx_rule rule_tiny = {
    "TST001", "test-tiny-block", 0, TDX_SEV_WARNING, "retune",
    "the block is too small to keep the memory system busy",
    "A tile of 16 elements issues 16 loads per program; H200 needs far more bytes in flight.",
    "raise BLOCK to 1024 or more, or autotune it",
    "Little's law over HBM3e latency and bandwidth (notes/h200.md)"};
static const tdx_rule rule_note = {
    "TST002", "test-tab-note", 0, TDX_SEV_NOTE, "",
    "a note without a rewrite", "Notes carry no rewrite family.", "nothing to change",
    "none"};
static const tdx_rule rule_pipe = {
    "TST301", "test-no-pipelining", 3, TDX_SEV_ERROR, "pipelining",
    "the loop was not pipelined",
    "The software pipeliner skips loops whose loads it cannot make asynchronous.",
    "give the loop a constant trip count and num_stages >= 2",
    "lib/Dialect/TritonGPU/Transforms/Pipeliner/ (Triton 3.6)"};
static const tdx_rule rule_prof = {
    "TST101", "test-memory-bound", 1, TDX_SEV_WARNING, "coalesce",
    "memory-bound well below the copy bandwidth", "Measured bytes per second against the ceiling.",
    "read each byte once, contiguously", "notes/h200.md copy bandwidth"};

typedef struct canned {
    tdx_ledger led;
    tdx_diags diags;
    char *text;
    size_t len;
    tdx_rep_file files[2];
    tdx_rep_run run;
} canned;

static tdx_finding *add(canned *c, const tdx_rule *r, const char *file, int line, int col,
                        const char *msg)
{
    tdx_finding *f = tdx_ledger_add(&c->led, "TDX000", file, line, col, "%s", msg);
    assert_non_null(f);
    f->rule = r;
    f->level = r->level;
    f->sev = r->sev;
    f->family = r->family;
    return f;
}

// The canned run: one kernel file with findings of three levels, one file
// that did not parse, one finding in a file whose text is not at hand, and
// one finding with no location at all.
static void canned_init(canned *c)
{
    memset(c, 0, sizeof *c);
    tdx_ledger_init(&c->led);
    tdx_diags_init(&c->diags);
    assert_int_equal(tdx_file_read(TDX_TEST_DATA "/report/kern.py", 1 << 20, &c->text, &c->len),
                     TDX_OK);
    const char *kp = "report/kern.py";
    tdx_kernel_info *k = tdx_ledger_add_kernel(&c->led, "row_sum", kp, 6, 1, "row-reduction", 0.9);
    assert_non_null(k);
    k->why = "a loop of loads summed along axis 1";

    tdx_finding *f1 = add(c, &rule_tiny, kp, 9, 13, "BLOCK is 16: each program moves 64 bytes");
    f1->end_line = 9;
    f1->end_col = 41;
    f1->confidence = 0.85;
    f1->expected_gain = 3.2;
    assert_int_equal(tdx_finding_set_kernel(&c->led, f1, "row_sum"), TDX_OK);
    assert_int_equal(tdx_finding_set_hypothesis(&c->led, f1, "too few bytes in flight per SM"),
                     TDX_OK);
    assert_int_equal(tdx_finding_fact(&c->led, f1, "BLOCK", "%d", 16), TDX_OK);
    assert_int_equal(tdx_finding_fact(&c->led, f1, "bytes_per_program", "%d", 64), TDX_OK);

    tdx_finding *f2 = add(c, &rule_note, kp, 10, 2, "tab-indented line");
    f2->end_line = 10;
    f2->end_col = 5;
    f2->confidence = 1.0;
    assert_int_equal(tdx_finding_set_kernel(&c->led, f2, "row_sum"), TDX_OK);

    tdx_finding *f3 = add(c, &rule_pipe, kp, 8, 5, "loop at 8:5 not pipelined: scf.for has no "
                                                   "tt.num_stages");
    f3->confidence = 0.7;
    f3->expected_gain = 1.4;
    assert_int_equal(tdx_finding_set_kernel(&c->led, f3, "row_sum"), TDX_OK);
    assert_int_equal(tdx_finding_set_evidence(&c->led, f3,
                                              "scf.for %i = %c0 to %n step %c16 {\n"
                                              "  %x = tt.load %p : tensor<16x!tt.ptr<f32>>"),
                     TDX_OK);
    assert_int_equal(tdx_finding_cite(&c->led, f3, f1->id), TDX_OK);

    tdx_finding *f4 = add(c, &rule_tiny, kp, 11, 19, "a load after a non-ASCII string");
    f4->end_line = 11;
    f4->end_col = 33;
    assert_int_equal(tdx_finding_set_kernel(&c->led, f4, "row_sum"), TDX_OK);

    tdx_finding *f5 = add(c, &rule_tiny, "lib/other file.py", 3, 1, "a file without its text");
    (void)f5;
    tdx_finding *f6 = add(c, &rule_prof, NULL, 0, 0, "memory-bound at 31% of 4.25 TB/s");
    assert_int_equal(tdx_finding_set_kernel(&c->led, f6, "row_sum"), TDX_OK);

    tdx_diags_add(&c->diags, TDX_SEV_ERROR, "report/bad.py", 3, 7, "invalid syntax");
    tdx_diags_add(&c->diags, TDX_SEV_NOTE, "report/empty.py", 0, 0,
                  "empty file, nothing to triage");

    c->files[0] = (tdx_rep_file){kp, c->text, c->len, TDX_OK};
    c->files[1] = (tdx_rep_file){"report/bad.py", NULL, 0, TDX_ERR_PARSE};
    c->run = (tdx_rep_run){&c->led, c->files, 2, &c->diags};
}

static void canned_free(canned *c)
{
    tdx_ledger_free(&c->led);
    tdx_diags_free(&c->diags);
    free(c->text);
}

// Compare out with the golden file (or rewrite it when asked to).
static void check_golden(const char *name, const tdx_buf *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/report/%s", TDX_TEST_DATA, name);
    const char *upd = getenv("TDX_UPDATE_GOLDEN");
    if (upd && *upd) {
        assert_int_equal(tdx_file_write(path, tdx_buf_str(out), out->len), TDX_OK);
        return;
    }
    char *want;
    size_t n;
    assert_int_equal(tdx_file_read(path, 1 << 22, &want, &n), TDX_OK);
    if (n != out->len || memcmp(want, tdx_buf_str(out), n) != 0) {
        print_error("%s differs from the output; got:\n%s\n(regenerate with "
                    "TDX_UPDATE_GOLDEN=1 build/tests/test_report and review the diff)\n",
                    path, tdx_buf_str(out));
        free(want);
        fail();
    }
    free(want);
}

static const tdx_rep_opts plain = {.version = "9.9.9"};

static void text_golden(void **state)
{
    (void)state;
    canned c;
    canned_init(&c);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_rep_opts o = {.caret = 1, .version = "9.9.9"};
    assert_int_equal(tdx_rep_text(&c.run, &o, &b), TDX_OK);
    tdx_rep_totals t;
    tdx_rep_count(&c.run, &t);
    assert_int_equal(t.warnings, 4);
    assert_int_equal(t.errors, 1);
    assert_int_equal(t.notes, 1);
    assert_int_equal(tdx_rep_text_totals(&t, &o, &b), TDX_OK);
    check_golden("canned.txt.golden", &b);

    tdx_buf_reset(&b);
    o.color = 1;
    assert_int_equal(tdx_rep_text(&c.run, &o, &b), TDX_OK);
    check_golden("canned.color.golden", &b);

    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_diags_text(&c.diags, &plain, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "report/bad.py:3:7: error: invalid syntax\n"
                                         "report/empty.py: note: empty file, nothing to triage\n");
    /* With a caret, under the diag located in the file at hand only. */
    tdx_buf_reset(&b);
    tdx_rep_file bad = {"report/bad.py", "a\nb\ndef f(:\n", 12, TDX_ERR_PARSE};
    tdx_rep_opts oc = {.caret = 1};
    assert_int_equal(tdx_rep_diags_text_src(&c.diags, &bad, &oc, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "report/bad.py:3:7: error: invalid syntax\n"
                                         "    3 | def f(:\n"
                                         "      |       ^\n"
                                         "report/empty.py: note: empty file, nothing to triage\n");
    tdx_buf_free(&b);
    canned_free(&c);
}

// Without a caret or colour each finding is exactly one headline plus notes.
static void text_plain_has_no_escapes_or_source(void **state)
{
    (void)state;
    canned c;
    canned_init(&c);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_text(&c.run, &plain, &b), TDX_OK);
    const char *s = tdx_buf_str(&b);
    assert_null(strchr(s, '\033'));
    assert_null(strstr(s, "    9 | "));
    assert_non_null(strstr(s, "report/kern.py:9:13: warning: BLOCK is 16: each program moves 64 "
                              "bytes [TST001]\n"));
    /* Reading order: line 6 (kernel), 8, 9, 10, 11; then the file not in
     * the run; then the finding without a location. */
    const char *k = strstr(s, "kernel 'row_sum'"), *l8 = strstr(s, "kern.py:8:5: error"),
               *l9 = strstr(s, "kern.py:9:13: warning"), *o = strstr(s, "other file.py:3:1"),
               *n = strstr(s, "row_sum: warning: memory-bound");
    assert_true(k && l8 && l9 && o && n);
    assert_true(k < l8 && l8 < l9 && l9 < o && o < n);
    tdx_buf_free(&b);
    canned_free(&c);
}

// A message or source line can never smuggle terminal escapes through.
static void text_neutralises_control_characters(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    const char *src = "x = 1\n\033[31mevil\r\n";
    tdx_finding *f = tdx_ledger_add(&l, "TDX000", "e.py", 2, 1, "bad \033]0;title\007 name");
    assert_non_null(f);
    tdx_rep_file file = {"e.py", src, strlen(src), TDX_OK};
    tdx_rep_run run = {&l, &file, 1, NULL};
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_rep_opts o = {.caret = 1};
    assert_int_equal(tdx_rep_text(&run, &o, &b), TDX_OK);
    assert_null(strchr(tdx_buf_str(&b), '\033'));
    assert_null(strchr(tdx_buf_str(&b), '\007'));
    assert_null(strchr(tdx_buf_str(&b), '\r'));
    assert_non_null(strstr(tdx_buf_str(&b), "e.py:2:1: error: bad ?]0;title? name [TDX000]\n"));
    assert_non_null(strstr(tdx_buf_str(&b), "    2 | ?[31mevil\n      | ^\n"));
    tdx_buf_free(&b);
    tdx_ledger_free(&l);
}

// Carets: tabs copied, multi-byte characters one column, past the end
// clamped after the last character, lines past the file's end not shown.
static void text_caret_alignment(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    const char *src = "\tab\xc3\xa9" "cd\n";
    tdx_finding *f = tdx_ledger_add(&l, "TDX000", "t.py", 1, 6, "at c");
    f->end_line = 1;
    f->end_col = 8;
    tdx_ledger_add(&l, "TDX000", "t.py", 1, 99, "past the end");
    tdx_ledger_add(&l, "TDX000", "t.py", 7, 1, "no such line");
    tdx_rep_file file = {"t.py", src, strlen(src), TDX_OK};
    tdx_rep_run run = {&l, &file, 1, NULL};
    tdx_buf b;
    tdx_buf_init(&b, 0);
    tdx_rep_opts o = {.caret = 1};
    assert_int_equal(tdx_rep_text(&run, &o, &b), TDX_OK);
    const char *s = tdx_buf_str(&b);
    assert_non_null(strstr(s, "t.py:1:6: error: at c [TDX000]\n"
                              "    1 | \tab\xc3\xa9" "cd\n"
                              "      | \t   ^~\n"));
    assert_non_null(strstr(s, "past the end [TDX000]\n    1 | \tab\xc3\xa9" "cd\n      | \t     "));
    assert_non_null(strstr(s, "t.py:7:1: error: no such line [TDX000]\n"));
    assert_null(strstr(s, "    7 |"));
    tdx_buf_free(&b);
    tdx_ledger_free(&l);
}

static void json_golden_and_shape(void **state)
{
    (void)state;
    canned c;
    canned_init(&c);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_json(&c.run, &plain, &b), TDX_OK);
    check_golden("canned.json.golden", &b);

    json_error_t err;
    json_t *root = json_loads(tdx_buf_str(&b), 0, &err);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "schema")), TDX_REP_JSON_SCHEMA);
    assert_int_equal(json_integer_value(json_object_get(root, "version")), 1);
    json_t *fs = json_object_get(root, "findings");
    assert_int_equal(json_array_size(fs), 6);
    json_t *f3 = json_array_get(fs, 2);
    assert_string_equal(json_string_value(json_object_get(f3, "id")), "F3");
    assert_string_equal(json_string_value(json_array_get(json_object_get(f3, "cites"), 0)), "F1");
    assert_int_equal(json_integer_value(json_object_get(f3, "level")), 3);
    json_t *f1 = json_array_get(fs, 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(f1, "facts"), "bytes_per_program")),
        "64");
    assert_true(json_is_null(json_object_get(json_array_get(fs, 1), "family")));
    assert_true(json_is_null(json_object_get(json_array_get(fs, 1), "expected_gain")));
    json_t *loc6 = json_object_get(json_array_get(fs, 5), "location");
    assert_true(json_is_null(json_object_get(loc6, "file")));
    assert_true(json_is_null(json_object_get(loc6, "line")));
    assert_int_equal(json_array_size(json_object_get(root, "diagnostics")), 2);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(root, "files"), 1), "status")),
                        "parse error");
    json_decref(root);
    tdx_buf_free(&b);
    canned_free(&c);
}

// Invalid UTF-8 in a message still gives valid JSON and SARIF.
static void json_survives_invalid_utf8(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_finding *f = tdx_ledger_add(&l, "TDX000", "u.py", 1, 1, "bad \xff\xfe byte");
    assert_int_equal(tdx_finding_fact(&l, f, "k\xff", "v\xc3"), TDX_OK);
    tdx_rep_run run = {&l, NULL, 0, NULL};
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_json(&run, &plain, &b), TDX_OK);
    json_t *root = json_loads(tdx_buf_str(&b), 0, NULL);
    assert_non_null(root);
    json_t *f0 = json_array_get(json_object_get(root, "findings"), 0);
    assert_string_equal(json_string_value(json_object_get(f0, "message")), "bad ?? byte");
    assert_string_equal(json_string_value(json_object_get(json_object_get(f0, "facts"), "k?")),
                        "v?");
    json_decref(root);
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_sarif(&run, &plain, &b), TDX_OK);
    root = json_loads(tdx_buf_str(&b), 0, NULL);
    assert_non_null(root);
    json_decref(root);
    tdx_buf_free(&b);
    tdx_ledger_free(&l);
}

// The checks GitHub code scanning makes on upload, and SARIF 2.1.0's own
// constraints on what we emit.
static void check_sarif_structure(const char *doc, size_t want_results)
{
    json_error_t err;
    json_t *root = json_loads(doc, 0, &err);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "version")), "2.1.0");
    assert_non_null(strstr(json_string_value(json_object_get(root, "$schema")), "sarif-2.1.0"));
    json_t *runs = json_object_get(root, "runs");
    assert_int_equal(json_array_size(runs), 1);
    json_t *run = json_array_get(runs, 0);
    json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
    assert_string_equal(json_string_value(json_object_get(driver, "name")), "tritondx");
    assert_non_null(json_string_value(json_object_get(driver, "version")));
    assert_non_null(json_string_value(json_object_get(driver, "informationUri")));
    json_t *rules = json_object_get(driver, "rules");
    assert_true(json_is_array(rules));
    for (size_t i = 0; i < json_array_size(rules); i++) {
        json_t *r = json_array_get(rules, i);
        const char *id = json_string_value(json_object_get(r, "id"));
        assert_non_null(id);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(id, json_string_value(
                                            json_object_get(json_array_get(rules, j), "id")));
        assert_non_null(json_string_value(json_object_get(r, "name")));
        assert_non_null(json_string_value(
            json_object_get(json_object_get(r, "shortDescription"), "text")));
        assert_non_null(json_string_value(
            json_object_get(json_object_get(r, "fullDescription"), "text")));
        assert_non_null(json_string_value(json_object_get(json_object_get(r, "help"), "text")));
        assert_non_null(
            json_string_value(json_object_get(json_object_get(r, "help"), "markdown")));
        const char *lv = json_string_value(
            json_object_get(json_object_get(r, "defaultConfiguration"), "level"));
        assert_true(lv && (!strcmp(lv, "error") || !strcmp(lv, "warning") || !strcmp(lv, "note")));
        assert_true(json_is_array(json_object_get(json_object_get(r, "properties"), "tags")));
    }
    json_t *results = json_object_get(run, "results");
    assert_int_equal(json_array_size(results), want_results);
    for (size_t i = 0; i < json_array_size(results); i++) {
        json_t *res = json_array_get(results, i);
        const char *rid = json_string_value(json_object_get(res, "ruleId"));
        json_t *ix = json_object_get(res, "ruleIndex");
        assert_true(rid && json_is_integer(ix));
        assert_true(json_integer_value(ix) >= 0 &&
                    (size_t)json_integer_value(ix) < json_array_size(rules));
        assert_string_equal(rid, json_string_value(json_object_get(
                                     json_array_get(rules, (size_t)json_integer_value(ix)), "id")));
        const char *lv = json_string_value(json_object_get(res, "level"));
        assert_true(lv && (!strcmp(lv, "error") || !strcmp(lv, "warning") || !strcmp(lv, "note")));
        json_t *jmsg = json_object_get(res, "message");
        const char *msg = json_string_value(json_object_get(jmsg, "text"));
        assert_true(msg && *msg);
        json_t *locs = json_object_get(res, "locations");
        for (size_t k = 0; k < json_array_size(locs); k++) {
            json_t *pl = json_object_get(json_array_get(locs, k), "physicalLocation");
            const char *uri =
                json_string_value(json_object_get(json_object_get(pl, "artifactLocation"), "uri"));
            assert_true(uri && *uri);
            assert_null(strchr(uri, ' '));
            assert_true(strncmp(uri, "./", 2) != 0);
            json_t *reg = json_object_get(pl, "region");
            if (!reg)
                continue;
            json_int_t sl = json_integer_value(json_object_get(reg, "startLine"));
            assert_true(sl >= 1);
            json_t *sc = json_object_get(reg, "startColumn"), *el = json_object_get(reg, "endLine"),
                   *ec = json_object_get(reg, "endColumn");
            if (sc)
                assert_true(json_integer_value(sc) >= 1);
            if (el)
                assert_true(json_integer_value(el) >= sl);
            if (ec) {
                assert_true(json_integer_value(ec) >= 1);
                if (sc && (!el || json_integer_value(el) == sl))
                    assert_true(json_integer_value(ec) > json_integer_value(sc));
            }
        }
    }
    json_decref(root);
}

static void sarif_golden_and_structure(void **state)
{
    (void)state;
    canned c;
    canned_init(&c);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_sarif(&c.run, &plain, &b), TDX_OK);
    check_golden("canned.sarif.golden", &b);
    check_sarif_structure(tdx_buf_str(&b), 6);

    /* Specific points: rules in id order, each once; columns in code
     * points on the line with an 'é'; the URI of a path with a space. */
    json_t *root = json_loads(tdx_buf_str(&b), 0, NULL);
    json_t *run = json_array_get(json_object_get(root, "runs"), 0);
    json_t *driver = json_object_get(json_object_get(run, "tool"), "driver");
    json_t *rules = json_object_get(driver, "rules");
    assert_int_equal(json_array_size(rules), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rules, 0), "id")),
                        "TST001");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rules, 3), "id")),
                        "TST301");
    json_t *r4 = json_array_get(json_object_get(run, "results"), 3);
    json_t *reg = json_object_get(
        json_object_get(json_array_get(json_object_get(r4, "locations"), 0), "physicalLocation"),
        "region");
    assert_int_equal(json_integer_value(json_object_get(reg, "startColumn")), 18);
    assert_int_equal(json_integer_value(json_object_get(reg, "endColumn")), 32);
    json_t *r5 = json_array_get(json_object_get(run, "results"), 4);
    json_t *pl5 = json_object_get(json_array_get(json_object_get(r5, "locations"), 0),
                                  "physicalLocation");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(pl5, "artifactLocation"), "uri")),
        "lib/other%20file.py");
    /* The finding without a file is anchored at its kernel's def line. */
    json_t *r6 = json_array_get(json_object_get(run, "results"), 5);
    json_t *pl6 = json_object_get(json_array_get(json_object_get(r6, "locations"), 0),
                                  "physicalLocation");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(pl6, "artifactLocation"), "uri")),
        "report/kern.py");
    json_t *reg6 = json_object_get(pl6, "region");
    assert_int_equal(json_integer_value(json_object_get(reg6, "startLine")), 6);
    json_t *inv = json_array_get(json_object_get(run, "invocations"), 0);
    assert_true(json_is_false(json_object_get(inv, "executionSuccessful")));
    assert_int_equal(json_array_size(json_object_get(inv, "toolExecutionNotifications")), 2);
    json_decref(root);

    /* An empty run is valid too. */
    tdx_ledger empty;
    tdx_ledger_init(&empty);
    tdx_rep_run er = {&empty, NULL, 0, NULL};
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_sarif(&er, &plain, &b), TDX_OK);
    check_sarif_structure(tdx_buf_str(&b), 0);
    tdx_ledger_free(&empty);
    tdx_buf_free(&b);
    canned_free(&c);
}

static void uri_and_columns(void **state)
{
    (void)state;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep__uri("./a/b c.py", NULL, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "a/b%20c.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri(".//x#1%.py", "/w", &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "x%231%25.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("/abs/k.py", "/ab", &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "file:///abs/k.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("caf\xc3\xa9.py", NULL, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "caf%C3%A9.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("/work/repo/k/a.py", "/work/repo/", &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "k/a.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("/work/repo2/a.py", "/work/repo", &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "file:///work/repo2/a.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("a/./b/../c//d.py", NULL, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "a/c/d.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("../../x/../y.py", NULL, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "../../y.py");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep__uri("/../a/./b.py", NULL, &b), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "file:///a/b.py");
    assert_null(tdx_rep__under("/work/repo", "/work/repo"));
    assert_string_equal(tdx_rep__under("/a.py", "/"), "a.py");
    assert_null(tdx_rep__under("rel/a.py", "/work"));
    tdx_buf_free(&b);

    char *c = tdx_rep__utf8_clean("\xed\xa0\x80|\xe0\x80\x80|\xf4\x90\x80\x80|\xc0\xaf|"
                                  "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e|\xe2\x82");
    assert_string_equal(c, "???|???|????|??|\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e|??");
    free(c);

    const char *src = "ab\n\xc3\xa9\xe2\x82\xac" "x\r\n";
    tdx_rep_file f = {"f.py", src, strlen(src), TDX_OK};
    assert_int_equal(tdx_rep__cp_col(&f, 1, 2), 2);
    assert_int_equal(tdx_rep__cp_col(&f, 2, 6), 3);
    assert_int_equal(tdx_rep__cp_col(&f, 2, 7), 4);
    assert_int_equal(tdx_rep__cp_col(NULL, 2, 7), 7);
    size_t n;
    const char *l2 = tdx_rep__line(src, strlen(src), 2, &n);
    assert_non_null(l2);
    assert_int_equal(n, 6); /* CR dropped */
    assert_null(tdx_rep__line(src, strlen(src), 3, &n));
    assert_non_null(tdx_rep__line("", 0, 1, &n));
    assert_int_equal(n, 0);
}

// A capped output buffer gives TDX_ERR_TOOBIG, never a crash.
static void renderers_respect_the_buffer_cap(void **state)
{
    (void)state;
    canned c;
    canned_init(&c);
    tdx_buf b;
    tdx_buf_init(&b, 64);
    tdx_rep_opts o = {.color = 1, .caret = 1};
    assert_int_equal(tdx_rep_text(&c.run, &o, &b), TDX_ERR_TOOBIG);
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_json(&c.run, &o, &b), TDX_ERR_TOOBIG);
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_sarif(&c.run, &o, &b), TDX_ERR_TOOBIG);
    tdx_buf_free(&b);
    canned_free(&c);
}

// Random bytes in every string and random positions (a fixed seed): JSON
// and SARIF stay parseable, text has no control character but \n and \t.
static void renderers_survive_random_input(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        tdx_ledger l;
        tdx_ledger_init(&l);
        char msg[64], path[32], src[256];
        for (size_t i = 0; i < sizeof src - 1; i++) {
            seed = seed * 1103515245u + 12345u;
            src[i] = (char)((seed >> 16) & 0xff);
            if (src[i] == 0)
                src[i] = '\n';
        }
        src[sizeof src - 1] = '\0';
        memcpy(path, src, sizeof path - 1);
        path[sizeof path - 1] = '\0';
        tdx_rep_file file = {path, src, strlen(src), TDX_OK};
        for (int k = 0; k < 5; k++) {
            memcpy(msg, src + 40 + k * 30, sizeof msg - 1);
            msg[sizeof msg - 1] = '\0';
            seed = seed * 1103515245u + 12345u;
            int line = (int)(seed >> 20) % 12 - 1, col = (int)(seed >> 8) % 90 - 1;
            tdx_finding *f =
                tdx_ledger_add(&l, "TDX000", k == 4 ? NULL : path, line, col, "%s", msg);
            assert_non_null(f);
            f->end_line = line + (int)(seed & 1);
            f->end_col = col + (int)(seed >> 28) - 4;
            tdx_finding_set_kernel(&l, f, msg + 3);
            tdx_finding_set_hypothesis(&l, f, "%s", msg + 5);
            tdx_finding_set_evidence(&l, f, msg + 7);
            tdx_finding_fact(&l, f, msg + 9, "%s", msg + 11);
        }
        tdx_ledger_add_kernel(&l, msg, path, 2, 3, msg + 1, 0.3);
        tdx_rep_run run = {&l, &file, 1, NULL};
        tdx_buf b;
        tdx_buf_init(&b, 0);
        tdx_rep_opts o = {.color = round & 1, .caret = 1, .root = "/"};
        assert_int_equal(tdx_rep_text(&run, &o, &b), TDX_OK);
        for (size_t i = 0; i < b.len; i++) {
            unsigned char c = (unsigned char)b.data[i];
            assert_true(c >= 0x20 || c == '\n' || c == '\t' || (o.color && c == 033));
        }
        tdx_buf_reset(&b);
        assert_int_equal(tdx_rep_json(&run, &o, &b), TDX_OK);
        json_t *j = json_loads(tdx_buf_str(&b), 0, NULL);
        assert_non_null(j);
        json_decref(j);
        tdx_buf_reset(&b);
        assert_int_equal(tdx_rep_sarif(&run, &o, &b), TDX_OK);
        check_sarif_structure(tdx_buf_str(&b), 5);
        tdx_buf_free(&b);
        tdx_ledger_free(&l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_golden),
        cmocka_unit_test(text_plain_has_no_escapes_or_source),
        cmocka_unit_test(text_neutralises_control_characters),
        cmocka_unit_test(text_caret_alignment),
        cmocka_unit_test(json_golden_and_shape),
        cmocka_unit_test(json_survives_invalid_utf8),
        cmocka_unit_test(sarif_golden_and_structure),
        cmocka_unit_test(uri_and_columns),
        cmocka_unit_test(renderers_respect_the_buffer_cap),
        cmocka_unit_test(renderers_survive_random_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
