/* Unit tests for the run reports: golden files for the Markdown and JSON of
 * the canned optimize and bench runs (tests/data/runs/), the log-scale and
 * tick math of the SVG charts, escaping of every string from a run, and
 * runs that are cut short or are no runs at all.
 *
 * Regenerate the golden files after an intended change with
 *   TDX_UPDATE_GOLDEN=1 build/tests/test_report_run
 * (run from tests/, as ctest does) and review the diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "report/run.h"
#include "report/svg.h"

/* The canned runs, as the tests name them (relative: ctest runs in tests/). */
#define RUN_OPT "data/runs/optimize"
#define RUN_BENCH "data/runs/bench"

// Compare out with the golden file (or rewrite it when asked to).
static void check_golden(const char *name, const tdx_buf *out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/runs/%s", TDX_TEST_DATA, name);
    const char *upd = getenv("TDX_UPDATE_GOLDEN");
    if (upd && *upd) {
        assert_int_equal(tdx_file_write(path, tdx_buf_str(out), out->len), TDX_OK);
        return;
    }
    char *want;
    size_t n;
    assert_int_equal(tdx_file_read(path, 1 << 22, &want, &n), TDX_OK);
    if (n != out->len || memcmp(want, tdx_buf_str(out), n) != 0) {
        print_error("%s differs from the output; got:\n%s\n(regenerate with TDX_UPDATE_GOLDEN=1 "
                    "build/tests/test_report_run from tests/ and review the diff)\n",
                    path, tdx_buf_str(out));
        free(want);
        fail();
    }
    free(want);
}

static tdx_rep_model *load_ok(const char *dir)
{
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_rep_model *m = NULL;
    tdx_status st = tdx_rep_run_load(dir, NULL, &m, &d);
    if (st)
        print_error("%s: %s\n", dir, d.len ? d.items[0].msg : tdx_status_str(st));
    tdx_diags_free(&d);
    assert_int_equal(st, TDX_OK);
    assert_non_null(m);
    return m;
}

static void render_golden(const char *dir, const char *golden,
                          tdx_status (*fn)(const tdx_rep_model *, tdx_buf *))
{
    tdx_rep_model *m = load_ok(dir);
    m->chart_file = 1; /* as the command writes it: with the chart's file */
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(fn(m, &b), TDX_OK);
    check_golden(golden, &b);
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
}

static void test_optimize_md_golden(void **s)
{
    (void)s;
    render_golden(RUN_OPT, "optimize.golden.md", tdx_rep_run_md);
}

static void test_optimize_json_golden(void **s)
{
    (void)s;
    render_golden(RUN_OPT, "optimize.golden.json", tdx_rep_run_json);
}

static void test_bench_md_golden(void **s)
{
    (void)s;
    render_golden(RUN_BENCH, "bench.golden.md", tdx_rep_run_md);
}

static void test_bench_json_golden(void **s)
{
    (void)s;
    render_golden(RUN_BENCH, "bench.golden.json", tdx_rep_run_json);
}

/* What the model reads from the canned optimize run, checked field by field
 * (the goldens could be regenerated wrong; these numbers are the journal's). */
static void test_optimize_model(void **s)
{
    (void)s;
    tdx_rep_model *m = load_ok(RUN_OPT);
    const tdx_rep_opt *o = &m->opt;
    assert_int_equal(m->kind, TDX_REP_OPTIMIZE);
    assert_int_equal(o->nrounds, 2);
    assert_int_equal(o->kept, 1);
    assert_int_equal(o->tried, 7);
    assert_true(o->stopped);
    assert_string_equal(o->stop_reason, "no candidate was correct and faster");
    assert_true(o->base_median_s > 6.24e-5 && o->base_median_s < 6.26e-5);
    assert_true(o->final_s > 4.99e-5 && o->final_s < 5.01e-5);
    assert_int_equal(o->rounds[0].decided_level, 3);
    assert_int_equal(o->rounds[0].kept_index, 1);
    assert_true(o->rounds[0].cands[0].kept);
    assert_false(o->rounds[0].cands[1].kept);
    assert_string_equal(o->rounds[0].cands[1].verdict, "slower");
    assert_non_null(o->rounds[0].cands[1].reason);
    assert_int_equal(o->rounds[1].kept_index, 0);
    assert_true(o->roof.have_ceilings && o->roof.have_work);
    assert_null(o->roof.why);
    assert_true(o->roof.copy_bw == 4.25e12);
    assert_int_equal(m->nnotes, 0);
    tdx_rep_run_free(m);
}

static void test_bench_model(void **s)
{
    (void)s;
    tdx_rep_model *m = load_ok(RUN_BENCH);
    assert_int_equal(m->kind, TDX_REP_BENCH);
    assert_int_equal(m->bench.nsets, 2);
    /* sorted by level; the deepest is the one shown */
    assert_int_equal(m->bench.sets[0].max_level, 0);
    assert_int_equal(m->bench.sets[1].max_level, 3);
    assert_int_equal(m->bench.main, 1);
    assert_int_equal(m->bench.sets[1].rows.len, 3);
    assert_int_equal(m->bench.sets[1].sum.ok, 2);
    /* the canned results keep no task runs: nothing to link */
    for (size_t i = 0; i < m->bench.sets[1].rows.len; i++)
        assert_null(m->bench.sets[1].run_dirs[i]);
    tdx_rep_run_free(m);
}

/* ---- charts ----------------------------------------------------------------- */

static void test_log_range(void **s)
{
    (void)s;
    double lo = 0, hi = 0;
    assert_int_equal(tdx_rep_log_range(0.0833, 0.0833, &lo, &hi), 0);
    assert_true(lo == 0.01 && hi == 0.1);
    /* a power of ten still gets a decade */
    assert_int_equal(tdx_rep_log_range(1, 1, &lo, &hi), 0);
    assert_true(lo == 1 && hi == 10);
    assert_int_equal(tdx_rep_log_range(0.5, 2000, &lo, &hi), 0);
    assert_true(lo > 0.0999 && lo < 0.1001 && hi > 9999 && hi < 10001);
    assert_int_equal(tdx_rep_log_range(1.13e11, 7.7e14, &lo, &hi), 0);
    assert_true(lo > 0.999e11 && lo < 1.001e11 && hi > 0.999e15 && hi < 1.001e15);
    lo = hi = 7;
    assert_int_equal(tdx_rep_log_range(0, 1, &lo, &hi), -1);
    assert_int_equal(tdx_rep_log_range(-1, 1, &lo, &hi), -1);
    assert_int_equal(tdx_rep_log_range(2, 1, &lo, &hi), -1);
    assert_int_equal(tdx_rep_log_range(1, 1.0 / 0.0, &lo, &hi), -1);
    assert_true(lo == 7 && hi == 7);
}

static void test_log_map(void **s)
{
    (void)s;
    tdx_rep_logscale x = {1, 100, 0, 200};
    assert_true(tdx_rep_log_map(&x, 1) == 0);
    assert_true(tdx_rep_log_map(&x, 10) > 99.999 && tdx_rep_log_map(&x, 10) < 100.001);
    assert_true(tdx_rep_log_map(&x, 100) > 199.999);
    /* y grows downwards in SVG: a reversed range */
    tdx_rep_logscale y = {1e9, 1e15, 400, 100};
    assert_true(tdx_rep_log_map(&y, 1e9) == 400);
    assert_true(tdx_rep_log_map(&y, 1e12) > 249.999 && tdx_rep_log_map(&y, 1e12) < 250.001);
    assert_true(tdx_rep_log_map(&y, 1e15) < 100.001);
}

static void test_log_ticks(void **s)
{
    (void)s;
    double t[16];
    size_t n = tdx_rep_log_ticks(1e-3, 1e4, t, 8);
    assert_int_equal(n, 8);
    assert_true(t[0] > 0.00099 && t[0] < 0.00101 && t[7] > 9999 && t[7] < 10001);
    /* thinned to every other decade */
    n = tdx_rep_log_ticks(1e-3, 1e4, t, 4);
    assert_int_equal(n, 4);
    assert_true(t[1] > 0.0999 && t[1] < 0.1001 && t[3] > 999 && t[3] < 1001);
    n = tdx_rep_log_ticks(1, 10, t, 8);
    assert_int_equal(n, 2);
    assert_int_equal(tdx_rep_log_ticks(0, 10, t, 8), 0);
    assert_int_equal(tdx_rep_log_ticks(1, 10, t, 0), 0);
}

static void test_formats(void **s)
{
    (void)s;
    char b[32];
    tdx_rep_fmt_time(b, sizeof b, 6.25e-5);
    assert_string_equal(b, "62.5 µs");
    tdx_rep_fmt_time(b, sizeof b, 1e-3);
    assert_string_equal(b, "1 ms");
    tdx_rep_fmt_time(b, sizeof b, 4.2e-9);
    assert_string_equal(b, "4.2 ns");
    tdx_rep_fmt_time(b, sizeof b, 0);
    assert_string_equal(b, "–");
    tdx_rep_fmt_rate(b, sizeof b, 4.25e12, "B/s");
    assert_string_equal(b, "4.25 TB/s");
    tdx_rep_fmt_rate(b, sizeof b, 999.9e9, "FLOP/s");
    assert_string_equal(b, "1 TFLOP/s");
    tdx_rep_fmt_tick(b, sizeof b, 1e12);
    assert_string_equal(b, "1 T");
    tdx_rep_fmt_tick(b, sizeof b, 100);
    assert_string_equal(b, "100");
    tdx_rep_fmt_tick(b, sizeof b, 0.01);
    assert_string_equal(b, "0.01");
}

/* The roofline SVG of the canned run: the roof and both labelled points. */
static void test_roofline_svg(void **s)
{
    (void)s;
    tdx_rep_model *m = load_ok(RUN_OPT);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_svg_roofline(&m->opt, &b), TDX_OK);
    const char *svg = tdx_buf_str(&b);
    assert_non_null(strstr(svg, "<svg id=\"roofline\""));
    assert_non_null(strstr(svg, "<polyline id=\"roof\""));
    assert_non_null(strstr(svg, "id=\"pt-initial\""));
    assert_non_null(strstr(svg, "id=\"pt-final\""));
    assert_non_null(strstr(svg, "data-intensity=\"0.0833333\""));
    assert_non_null(strstr(svg, ">initial 62.5 µs (32%)</text>"));
    assert_non_null(strstr(svg, ">final (round 1) 50 µs (40%)</text>"));
    assert_non_null(strstr(svg, "copy 4.25 TB/s"));
    assert_non_null(strstr(svg, "</svg>"));
    tdx_buf_free(&b);
    /* without ceilings there is no chart, and the model says why */
    m->opt.roof.why = "no ceilings";
    assert_int_equal(tdx_rep_svg_roofline(&m->opt, &b), TDX_ERR_ARG);
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
}

/* The progress chart: the best fraction after each round and the target. */
static void test_progress_svg(void **s)
{
    (void)s;
    tdx_rep_model *m = load_ok(RUN_OPT);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_svg_progress(&m->opt, &b), TDX_OK);
    const char *svg = tdx_buf_str(&b);
    assert_non_null(strstr(svg, "data-round=\"0\" data-fraction=\"0.32\""));
    assert_non_null(strstr(svg, "data-round=\"1\" data-fraction=\"0.4\""));
    /* round 2 kept nothing: the best stays where it was */
    assert_non_null(strstr(svg, "data-round=\"2\" data-fraction=\"0.4\""));
    assert_non_null(strstr(svg, ">target 85%</text>"));
    tdx_buf_free(&b);
    m->opt.base_fraction = -1; /* nothing recorded: nothing drawn */
    assert_int_equal(tdx_rep_svg_progress(&m->opt, &b), TDX_ERR_ARG);
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The chart files: standalone SVG with their own styles. */
static void test_chart_files(void **s)
{
    (void)s;
    const char *dirs[] = {RUN_OPT, RUN_BENCH}, *names[] = {"report-roofline.svg", "report-speedups.svg"};
    for (int i = 0; i < 2; i++) {
        tdx_rep_model *m = load_ok(dirs[i]);
        tdx_buf b;
        tdx_buf_init(&b, 0);
        const char *name;
        assert_int_equal(tdx_rep_run_chart(m, &b, &name), TDX_OK);
        assert_string_equal(name, names[i]);
        assert_true(strncmp(tdx_buf_str(&b), "<?xml", 5) == 0);
        assert_non_null(strstr(tdx_buf_str(&b), "<style>"));
        tdx_buf_free(&b);
        tdx_rep_run_free(m);
    }
}

static void test_speedups_svg(void **s)
{
    (void)s;
    tdx_rep_model *m = load_ok(RUN_BENCH);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_svg_speedups(&m->bench.sets[m->bench.main], &b), TDX_OK);
    const char *svg = tdx_buf_str(&b);
    assert_int_equal(count(svg, "<rect class=\"bar"), 2); /* the task that did not run has none */
    assert_non_null(strstr(svg, "id=\"one-x\""));
    assert_non_null(strstr(svg, "data-task=\"scale.py\""));
    assert_non_null(strstr(svg, ">did not run</text>"));
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
}

/* ---- escaping ----------------------------------------------------------------- */

static void test_html_escape(void **s)
{
    (void)s;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_html_esc(&b, "</script><img src=x> & \"q\" 'a'"), TDX_OK);
    assert_string_equal(tdx_buf_str(&b),
                        "&lt;/script&gt;&lt;img src=x&gt; &amp; &quot;q&quot; &#39;a&#39;");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_html_esc(&b, NULL), TDX_OK);
    assert_int_equal(b.len, 0);
    tdx_buf_free(&b);
}

static void test_md_escape(void **s)
{
    (void)s;
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_md_text(&b, "a|b <img src=x> *c* [d](e)\nf `g`"), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "a\\|b \\<img src=x> \\*c\\* \\[d\\](e) f \\`g\\`");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_md_code(&b, "x`y"), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "``x`y``");
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_md_code(&b, "`a"), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "`` `a ``");
    tdx_buf_reset(&b);
    /* a code block whose text holds a fence gets a longer one */
    assert_int_equal(tdx_rep_md_block(&b, "diff", "+```\n-x"), TDX_OK);
    assert_string_equal(tdx_buf_str(&b), "````diff\n+```\n-x\n````\n");
    tdx_buf_free(&b);
}

/* Write a run directory with the given journal text; the path in dir[]. */
static void make_run(char *dir, size_t n, const char *journal)
{
    snprintf(dir, n, "/tmp/tdx_report_run.XXXXXX");
    assert_non_null(mkdtemp(dir));
    if (!journal)
        return;
    char path[600];
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    assert_int_equal(tdx_file_write(path, journal, strlen(journal)), TDX_OK);
}

static void remove_run(const char *dir)
{
    char path[600];
    const char *names[] = {"journal.jsonl", "results.json", "ceilings.json"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

static const char hostile[] =
    "{\"type\":\"start\",\"task\":\"k<b>.py\",\"task_hash\":\"0\",\"max_rounds\":1,\"max_level\":0,\"seq\":1}\n"
    "{\"type\":\"baseline\",\"median_s\":0.001,\"iqr_s\":0.00001,\"fraction\":0.5,\"seq\":2}\n"
    "{\"type\":\"round\",\"round\":1,\"findings\":[{\"id\":1,\"rule\":\"TDX001\",\"level\":0,"
    "\"file\":\"k.py\",\"line\":3,\"message\":\"m <i>x</i>\",\"evidence\":\"<svg onload=alert(1)>\"}],"
    "\"diagnosis\":{\"levels\":[],\"decided_level\":-1,\"deciding_finding\":0},\"seq\":3}\n"
    "{\"type\":\"candidate\",\"round\":1,\"index\":1,\"family\":\"llm\",\"origin\":\"llm\","
    "\"summary\":\"s|t\",\"verdict\":\"rejected\",\"cites\":[1],"
    "\"reason\":\"check failed: </script><img src=x>\",\"diff\":\"+<img src=z>\\n\",\"seq\":4}\n"
    "{\"type\":\"candidate\",\"round\":1,\"index\":2,\"family\":\"retune\",\"origin\":\"builtin\","
    "\"summary\":\"BLOCK\",\"verdict\":\"faster\",\"cites\":[],\"diff\":\"-a\\n+<img src=y>\\n\","
    "\"timing\":{\"base_median_s\":0.001,\"base_iqr_s\":0,\"cand_median_s\":0.0005,\"cand_iqr_s\":0},"
    "\"seq\":5}\n"
    "{\"type\":\"keep\",\"round\":1,\"index\":2,\"family\":\"retune\",\"median_s\":0.0005,"
    "\"speedup\":2.0,\"fraction\":1.0,\"seq\":6}\n"
    "{\"type\":\"round_end\",\"round\":1,\"kept\":1,\"decided_level\":-1,\"seq\":7}\n"
    "{\"type\":\"stop\",\"reason\":\"round limit reached\",\"seq\":8}\n";

/* A stack timed against the round's best says so: "(#1)" after the base's
 * time in Markdown and HTML, "against" in JSON; a candidate timed against
 * the best kept so far has neither. */
static const char stacked[] =
    "{\"type\":\"start\",\"task\":\"k.py\",\"task_hash\":\"0\",\"max_rounds\":1,\"max_level\":0,\"seq\":1}\n"
    "{\"type\":\"baseline\",\"median_s\":0.001,\"iqr_s\":0.00001,\"fraction\":0.5,\"seq\":2}\n"
    "{\"type\":\"round\",\"round\":1,\"findings\":[],"
    "\"diagnosis\":{\"levels\":[],\"decided_level\":-1,\"deciding_finding\":0},\"seq\":3}\n"
    "{\"type\":\"candidate\",\"round\":1,\"index\":1,\"family\":\"exp2\",\"origin\":\"builtin\","
    "\"summary\":\"e\",\"verdict\":\"faster\",\"cites\":[],\"diff\":\"\","
    "\"timing\":{\"base_median_s\":0.001,\"base_iqr_s\":0,\"cand_median_s\":0.0008,\"cand_iqr_s\":0},"
    "\"seq\":4}\n"
    "{\"type\":\"candidate\",\"round\":1,\"index\":2,\"family\":\"exp2+retune\",\"origin\":\"builtin\","
    "\"summary\":\"r\",\"verdict\":\"faster\",\"cites\":[],\"diff\":\"\",\"against\":1,"
    "\"timing\":{\"base_median_s\":0.0008,\"base_iqr_s\":0,\"cand_median_s\":0.0004,\"cand_iqr_s\":0},"
    "\"seq\":5}\n"
    "{\"type\":\"keep\",\"round\":1,\"index\":2,\"family\":\"exp2+retune\",\"median_s\":0.0004,"
    "\"speedup\":2.5,\"fraction\":1.0,\"seq\":6}\n"
    "{\"type\":\"round_end\",\"round\":1,\"kept\":1,\"decided_level\":-1,\"seq\":7}\n"
    "{\"type\":\"stop\",\"reason\":\"round limit reached\",\"seq\":8}\n";

static void test_against_round_best(void **s)
{
    (void)s;
    char dir[64];
    make_run(dir, sizeof dir, stacked);
    tdx_rep_model *m = load_ok(dir);
    assert_int_equal(m->opt.rounds[0].cands[0].against, 0);
    assert_int_equal(m->opt.rounds[0].cands[1].against, 1);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_run_md(m, &b), TDX_OK);
    const char *md = tdx_buf_str(&b);
    const char *row2 = strstr(md, "| 2 | exp2+retune |");
    assert_non_null(row2);
    assert_non_null(strstr(row2, " (#1) | 2.00× |"));
    const char *row1 = strstr(md, "| 1 | exp2 |");
    assert_non_null(row1);
    assert_true(strstr(row1, "(#") == NULL || strstr(row1, "(#") > row2);
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_run_html(m, &b), TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&b), " (#1)</td>"));
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_run_json(m, &b), TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&b), "\"against\": 1"));
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
    remove_run(dir);
}

/* The end's side-by-side timing is the run's final time (and, where the
 * journal has it, the task's time and roofline fraction there); one that
 * undid the kept source says so in a note and leaves the task's time. */
static void test_confirm_sets_the_final_time(void **s)
{
    (void)s;
    static const char *const tails[] = {
        "{\"type\":\"confirm\",\"chained_final_s\":0.0004,\"final_s\":0.0005,\"fraction\":0.8,"
        "\"outcome\":\"faster\",\"reverted\":false,\"seq\":8}\n",
        "{\"type\":\"confirm\",\"chained_final_s\":0.0004,\"final_s\":0.001,\"fraction\":0.5,"
        "\"outcome\":\"slower\",\"reverted\":true,\"seq\":8}\n",
        "{\"type\":\"confirm\",\"chained_final_s\":0.0004,\"final_s\":0.0005,\"fraction\":0.8,"
        "\"initial_s\":0.0009,\"initial_fraction\":0.444,\"start_initial_s\":0.001,"
        "\"torch_eager_s\":0.0012,\"torch_compile_s\":0.0006,\"torch_compile_build_s\":12.5,\"outcome\":\"faster\","
        "\"reverted\":false,\"seq\":8}\n"};
    static const double final_s[] = {0.0005, 0.001, 0.0005}, fraction[] = {0.8, 0.5, 0.8};
    for (int i = 0; i < 3; i++) {
        char journal[4096];
        size_t n = strlen(stacked) - strlen(strstr(stacked, "{\"type\":\"stop\""));
        snprintf(journal, sizeof journal, "%.*s%s{\"type\":\"stop\",\"reason\":\"round limit reached\",\"seq\":9}\n",
                 (int)n, stacked, tails[i]);
        char dir[64];
        make_run(dir, sizeof dir, journal);
        tdx_rep_model *m = load_ok(dir);
        assert_true(fabs(m->opt.final_s - final_s[i]) < 1e-12);
        assert_true(fabs(m->opt.final_fraction - fraction[i]) < 1e-12);
        assert_true(fabs(m->opt.initial_s - (i == 2 ? 0.0009 : 0.001)) < 1e-12);
        if (i == 2)
            assert_true(fabs(m->opt.base_fraction - 0.444) < 1e-12);
        int said = 0;
        for (size_t k = 0; k < m->nnotes; k++)
            said += strstr(m->notes[k], "the result is the task as given") != NULL;
        assert_int_equal(said, i == 1);
        assert_string_equal(m->opt.confirm_outcome, i == 1 ? "slower" : "faster");
        tdx_buf b;
        tdx_buf_init(&b, 0);
        assert_int_equal(tdx_rep_run_md(m, &b), TDX_OK);
        assert_non_null(strstr(tdx_buf_str(&b), i == 1 ? "| beside the task at the end | slower (the rounds' ratios chained: 400"
                                                  : "| beside the task at the end | faster (the rounds' ratios chained: 400"));
        /* torch timed beside the result, where the confirm did */
        assert_true((strstr(tdx_buf_str(&b), "| torch timed beside the result | eager 1.2 ms, torch.compile 600 µs "
                                             "(the result: 500 µs; torch.compile's compile took 12.5 s) |") != NULL) ==
                    (i == 2));
        tdx_buf_reset(&b);
        assert_int_equal(tdx_rep_run_html(m, &b), TDX_OK);
        assert_non_null(strstr(tdx_buf_str(&b), "<tr><th>beside the task at the end</th><td>"));
        tdx_buf_reset(&b);
        assert_int_equal(tdx_rep_run_json(m, &b), TDX_OK);
        json_t *j = json_loads(tdx_buf_str(&b), 0, NULL);
        assert_non_null(j);
        json_t *c = json_object_get(json_object_get(j, "optimize"), "confirm");
        if (!c)
            c = json_object_get(j, "confirm");
        assert_non_null(c);
        assert_true(fabs(json_number_value(json_object_get(c, "chained_final_s")) - 0.0004) < 1e-12);
        json_t *tb = json_object_get(json_object_get(j, "optimize"), "torch_beside");
        tb = tb ? tb : json_object_get(j, "torch_beside");
        assert_true(i == 2 ? fabs(json_number_value(json_object_get(tb, "compile_s")) - 0.0006) < 1e-12 &&
                                 json_number_value(json_object_get(tb, "compile_build_s")) == 12.5
                           : !tb);
        json_decref(j);
        tdx_buf_free(&b);
        tdx_rep_run_free(m);
        remove_run(dir);
    }
}

/* What checking and timing cost: the task's and the candidates' check_s and
 * time_s, their lock waits and the check's parts, the end's timing. */
static void test_verification_cost(void **s)
{
    (void)s;
    static const char journal[] =
        "{\"type\":\"start\",\"task\":\"k.py\",\"task_hash\":\"0\",\"max_rounds\":1,\"max_level\":0,\"seq\":1}\n"
        "{\"type\":\"baseline\",\"median_s\":0.001,\"iqr_s\":0.00001,\"fraction\":0.5,\"check_s\":20,\"time_s\":5,"
        "\"check_parts_s\":{\"start\":5,\"child\":10,\"judge\":3},\"seq\":2}\n"
        "{\"type\":\"round\",\"round\":1,\"findings\":[],"
        "\"diagnosis\":{\"levels\":[],\"decided_level\":-1,\"deciding_finding\":0},\"seq\":3}\n"
        "{\"type\":\"candidate\",\"round\":1,\"index\":1,\"family\":\"exp2\",\"origin\":\"builtin\","
        "\"summary\":\"e\",\"verdict\":\"faster\",\"cites\":[],\"diff\":\"\",\"check_s\":12,\"time_s\":4,"
        "\"lock_wait_s\":{\"check\":1.5,\"time\":0.5},\"check_parts_s\":{\"start\":4,\"precompile\":2,\"child\":5,"
        "\"judge\":1},\"timing\":{\"base_median_s\":0.001,\"base_iqr_s\":0,\"cand_median_s\":0.0008,\"cand_iqr_s\":0},"
        "\"seq\":4}\n"
        "{\"type\":\"candidate\",\"round\":1,\"index\":2,\"family\":\"retune\",\"origin\":\"builtin\","
        "\"summary\":\"r\",\"verdict\":\"rejected\",\"cites\":[],\"diff\":\"\",\"check_s\":8,\"seq\":5}\n"
        "{\"type\":\"keep\",\"round\":1,\"index\":1,\"family\":\"exp2\",\"median_s\":0.0008,"
        "\"speedup\":1.25,\"fraction\":0.6,\"seq\":6}\n"
        "{\"type\":\"round_end\",\"round\":1,\"kept\":1,\"decided_level\":-1,\"seq\":7}\n"
        "{\"type\":\"confirm\",\"chained_final_s\":0.0008,\"final_s\":0.0008,\"fraction\":0.6,\"time_s\":6,"
        "\"outcome\":\"faster\",\"reverted\":false,\"seq\":8}\n"
        "{\"type\":\"stop\",\"reason\":\"round limit reached\",\"seq\":9}\n";
    char dir[64];
    make_run(dir, sizeof dir, journal);
    tdx_rep_model *m = load_ok(dir);
    const tdx_rep_verify *v = &m->opt.verify;
    assert_int_equal(v->checks, 3);
    assert_int_equal(v->timings, 3);
    assert_true(fabs(v->check_s - 40) < 1e-9 && fabs(v->time_s - 15) < 1e-9 && fabs(v->wait_s - 2) < 1e-9);
    assert_true(v->have_parts && fabs(v->start_s - 9) < 1e-9 && fabs(v->precompile_s - 2) < 1e-9);
    assert_true(fabs(v->child_s - 15) < 1e-9 && fabs(v->judge_s - 4) < 1e-9);
    static const char line[] = "3 checks, 40 s (start 9 s, precompile 2 s, child 15 s, judge 4 s); 3 timings, 15 s; "
                               "2 s of it waiting for the GPU";
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_run_md(m, &b), TDX_OK);
    char want[300];
    snprintf(want, sizeof want, "| checks and timings | %s |\n", line);
    assert_non_null(strstr(tdx_buf_str(&b), want));
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_run_html(m, &b), TDX_OK);
    snprintf(want, sizeof want, "<tr><th>checks and timings</th><td>%s</td></tr>", line);
    assert_non_null(strstr(tdx_buf_str(&b), want));
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_run_json(m, &b), TDX_OK);
    json_t *j = json_loads(tdx_buf_str(&b), 0, NULL);
    assert_non_null(j);
    json_t *o = json_object_get(j, "optimize") ? json_object_get(j, "optimize") : j;
    json_t *vj = json_object_get(o, "verification");
    assert_non_null(vj);
    assert_int_equal(json_integer_value(json_object_get(vj, "checks")), 3);
    assert_true(fabs(json_number_value(json_object_get(json_object_get(vj, "check_parts_s"), "child")) - 15) < 1e-9);
    json_decref(j);
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
    remove_run(dir);
}

/* Every string from the run comes out escaped: no tag of it survives. */
static void test_run_strings_escaped(void **s)
{
    (void)s;
    char dir[64];
    make_run(dir, sizeof dir, hostile);
    tdx_rep_model *m = load_ok(dir);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_run_html(m, &b), TDX_OK);
    const char *h = tdx_buf_str(&b);
    assert_non_null(strstr(h, "check failed: &lt;/script&gt;&lt;img src=x&gt;"));
    assert_null(strstr(h, "<img"));
    assert_null(strstr(h, "</script>"));
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "<svg onload"));
    assert_null(strstr(h, "<i>"));
    assert_null(strstr(h, "<b>"));
    assert_non_null(strstr(h, "&lt;img src=y&gt;"));
    tdx_buf_reset(&b);
    assert_int_equal(tdx_rep_run_md(m, &b), TDX_OK);
    const char *md = tdx_buf_str(&b);
    assert_non_null(strstr(md, "check failed: \\</script>\\<img src=x>"));
    assert_non_null(strstr(md, "s\\|t"));
    assert_non_null(strstr(md, "# tritondx report: k\\<b>.py\n"));
    /* outside code blocks no '<' is left unescaped */
    for (const char *p = strchr(md, '<'); p; p = strchr(p + 1, '<'))
        if (p[-1] != '\\') {
            /* only inside a fenced block: the diff and the evidence */
            /* ... or a code span: the task's path */
            assert_true(strncmp(p, "<img src=y>", 11) == 0 || strncmp(p, "<svg onload", 11) == 0 ||
                        strncmp(p - 2, "`k<b>.py`", 9) == 0);
        }
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
    remove_run(dir);
}

/* ---- partial and wrong inputs --------------------------------------------------- */

static void test_partial_journal(void **s)
{
    (void)s;
    char j[sizeof hostile + 64];
    /* the run was killed while writing its fourth entry */
    const char *cut = strstr(hostile, "{\"type\":\"candidate\"");
    snprintf(j, sizeof j, "%.*s{\"type\":\"candi", (int)(cut - hostile), hostile);
    char dir[64];
    make_run(dir, sizeof dir, j);
    tdx_rep_model *m = load_ok(dir);
    assert_int_equal(m->opt.nrounds, 1);
    assert_int_equal(m->opt.rounds[0].ncands, 0);
    assert_false(m->opt.stopped);
    assert_int_equal(m->nnotes, 2);
    assert_non_null(strstr(m->notes[0], "cut short"));
    assert_non_null(strstr(m->notes[1], "has not finished"));
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_run_md(m, &b), TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&b), "> **Note:** journal.jsonl: the journal was cut short"));
    assert_non_null(strstr(tdx_buf_str(&b), "The round did not end (interrupted)."));
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
    remove_run(dir);
}

/* A round interrupted and run again after --resume: the second attempt is
 * the one shown, and the report says so. */
static void test_resumed_round(void **s)
{
    (void)s;
    static const char j[] =
        "{\"type\":\"start\",\"task\":\"k.py\",\"max_rounds\":2,\"max_level\":0,\"seq\":1}\n"
        "{\"type\":\"baseline\",\"median_s\":0.001,\"iqr_s\":0,\"fraction\":0.1,\"seq\":2}\n"
        "{\"type\":\"round\",\"round\":1,\"findings\":[],\"diagnosis\":{\"levels\":[],"
        "\"decided_level\":-1,\"deciding_finding\":0},\"seq\":3}\n"
        "{\"type\":\"candidate\",\"round\":1,\"index\":1,\"verdict\":\"slower\",\"seq\":4}\n"
        "{\"type\":\"resume\",\"round\":1,\"seq\":5}\n"
        "{\"type\":\"round\",\"round\":1,\"findings\":[],\"diagnosis\":{\"levels\":[],"
        "\"decided_level\":-1,\"deciding_finding\":0},\"seq\":6}\n"
        "{\"type\":\"candidate\",\"round\":1,\"index\":1,\"verdict\":\"duplicate\",\"seq\":7}\n"
        "{\"type\":\"candidate\",\"round\":1,\"index\":2,\"verdict\":\"faster\",\"seq\":8}\n"
        "{\"type\":\"keep\",\"round\":1,\"index\":2,\"median_s\":0.0005,\"speedup\":2.0,"
        "\"fraction\":0.2,\"seq\":9}\n"
        "{\"type\":\"round_end\",\"round\":1,\"kept\":1,\"decided_level\":-1,\"seq\":10}\n"
        "{\"type\":\"stop\",\"reason\":\"round limit reached\",\"seq\":11}\n";
    char dir[64];
    make_run(dir, sizeof dir, j);
    tdx_rep_model *m = load_ok(dir);
    assert_int_equal(m->opt.resumes, 1);
    assert_int_equal(m->opt.nrounds, 1);
    assert_int_equal(m->opt.rounds[0].ncands, 2);
    assert_string_equal(m->opt.rounds[0].cands[0].verdict, "duplicate");
    assert_true(m->opt.rounds[0].cands[1].kept);
    assert_int_equal(m->opt.tried, 2);
    assert_true(m->opt.final_s == 0.0005);
    assert_int_equal(m->nnotes, 1);
    assert_non_null(strstr(m->notes[0], "round 1 was interrupted"));
    tdx_rep_run_free(m);
    remove_run(dir);
}

static void test_not_a_run(void **s)
{
    (void)s;
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_rep_model *m = NULL;
    char dir[64];
    make_run(dir, sizeof dir, NULL);
    assert_int_equal(tdx_rep_run_load(dir, NULL, &m, &d), TDX_ERR_NOTFOUND);
    assert_null(m);
    assert_int_equal(d.len, 1);
    assert_non_null(strstr(d.items[0].msg, "not a run directory"));
    remove_run(dir);
    assert_int_equal(tdx_rep_run_load(TDX_TEST_DATA "/runs/optimize/journal.jsonl", NULL, &m, &d),
                     TDX_ERR_INPUT);
    assert_int_equal(tdx_rep_run_load("/nonexistent/run", NULL, &m, &d), TDX_ERR_INPUT);
    assert_int_equal(d.len, 3);
    tdx_diags_free(&d);
}

/* A broken line in the middle of a journal is an error, not a silent cut. */
static void test_broken_journal(void **s)
{
    (void)s;
    char dir[64];
    make_run(dir, sizeof dir, "{\"type\":\"start\",\"seq\":1}\nnot json\n{\"type\":\"stop\",\"seq\":3}\n");
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_rep_model *m = NULL;
    assert_int_equal(tdx_rep_run_load(dir, NULL, &m, &d), TDX_ERR_PARSE);
    assert_int_equal(d.len, 1);
    assert_int_equal(d.items[0].line, 2);
    tdx_diags_free(&d);
    remove_run(dir);
}

/* Numbers no log scale holds leave the chart out, not the report. */
static void test_off_scale(void **s)
{
    (void)s;
    char dir[64], path[600];
    make_run(dir, sizeof dir, NULL);
    snprintf(path, sizeof path, "%s/results.json", dir);
    const char *rows = "{\"max_level\":3,\"rows\":[{\"task\":\"a.py\",\"status\":\"ok\","
                       "\"initial_s\":1e308,\"final_s\":1e-308}]}";
    assert_int_equal(tdx_file_write(path, rows, strlen(rows)), TDX_OK);
    tdx_rep_model *m = load_ok(dir);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_rep_run_html(m, &b), TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&b), "No chart: the speedups do not fit a log scale."));
    tdx_buf_reset(&b);
    const char *name;
    assert_int_not_equal(tdx_rep_run_chart(m, &b, &name), TDX_OK);
    tdx_buf_free(&b);
    tdx_rep_run_free(m);
    remove_run(dir);
}

/* Ceilings from --ceilings; a file that is not ceilings is an error. */
static void test_ceilings_file(void **s)
{
    (void)s;
    char dir[64];
    make_run(dir, sizeof dir, hostile);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_rep_model *m = NULL;
    tdx_rep_load_opts o = {TDX_TEST_DATA "/runs/optimize/ceilings.json"};
    assert_int_equal(tdx_rep_run_load(dir, &o, &m, &d), TDX_OK);
    assert_true(m->opt.roof.have_ceilings);
    /* but no level-1 facts: no chart, and the reason */
    assert_non_null(m->opt.roof.why);
    assert_non_null(strstr(m->opt.roof.why, "bytes and FLOPs"));
    tdx_rep_run_free(m);
    o.ceilings_path = TDX_TEST_DATA "/runs/optimize/journal.jsonl";
    assert_int_not_equal(tdx_rep_run_load(dir, &o, &m, &d), TDX_OK);
    assert_null(m);
    tdx_diags_free(&d);
    remove_run(dir);
}

int main(void)
{
    /* the canned runs are named relative to tests/, wherever this runs from */
    if (chdir(TDX_TEST_DATA "/..") != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimize_md_golden),
        cmocka_unit_test(test_optimize_json_golden),
        cmocka_unit_test(test_bench_md_golden),
        cmocka_unit_test(test_bench_json_golden),
        cmocka_unit_test(test_optimize_model),
        cmocka_unit_test(test_bench_model),
        cmocka_unit_test(test_log_range),
        cmocka_unit_test(test_log_map),
        cmocka_unit_test(test_log_ticks),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_roofline_svg),
        cmocka_unit_test(test_speedups_svg),
        cmocka_unit_test(test_progress_svg),
        cmocka_unit_test(test_chart_files),
        cmocka_unit_test(test_html_escape),
        cmocka_unit_test(test_md_escape),
        cmocka_unit_test(test_run_strings_escaped),
        cmocka_unit_test(test_partial_journal),
        cmocka_unit_test(test_resumed_round),
        cmocka_unit_test(test_not_a_run),
        cmocka_unit_test(test_broken_journal),
        cmocka_unit_test(test_ceilings_file),
        cmocka_unit_test(test_off_scale),
        cmocka_unit_test(test_against_round_best),
        cmocka_unit_test(test_confirm_sets_the_final_time),
        cmocka_unit_test(test_verification_cost),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
