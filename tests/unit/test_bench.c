/* Bench results: the summary statistics and the Markdown table of canned rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "bench/bench.h"

static void summary_of_canned_rows(void **state)
{
    (void)state;
    tdx_bench_results r = {0};
    assert_int_equal(tdx_bench_load(&r, TDX_TEST_DATA "/bench/canned.json"), TDX_OK);
    assert_int_equal(r.len, 4);
    tdx_bench_summary s;
    tdx_bench_summarize(&r, &s);
    assert_int_equal(s.tasks, 4);
    assert_int_equal(s.ok, 3);
    assert_true(fabs(s.geomean - cbrt(32.0)) < 1e-9);
    assert_true(fabs(s.median - 4.0) < 1e-9);
    assert_int_equal(s.above2, 2);
    assert_int_equal(s.above5, 1);
    assert_true(fabs(s.median_fraction - 0.8) < 1e-9);
    assert_int_equal(s.faster_eager, 2);
    assert_int_equal(s.faster_compile, 2);
    assert_int_equal(s.tie_eager, 1);   /* relu: 200 us against 200 */
    assert_int_equal(s.tie_compile, 0); /* relu: 200 against 190, 5 % */
    assert_int_equal(s.looser, 1);      /* matmul: 1e-3 against 1e-5; relu: the same both */
    assert_int_equal(s.looser_faster_compile, 1);
    assert_true(fabs(s.seconds - 195) < 1e-9);
    /* the most the roofline allows: 1 / fraction before (5, 1.11, 10), or the
     * speedup reached when more */
    assert_true(fabs(s.bound_geomean - cbrt(5.0 * (1 / 0.9) * 10.0)) < 1e-9);
    assert_true(fabs(s.bound_median - 5.0) < 1e-9);
    {
        tdx_bench_summary u;
        double fb = r.rows[2].fraction_before;
        r.rows[2].fraction_before = 0.2; /* matmul reached 8x from 20 %: 8 counts, not 5 */
        tdx_bench_summarize(&r, &u);
        assert_true(fabs(u.bound_geomean - cbrt(5.0 * (1 / 0.9) * 8.0)) < 1e-9);
        for (size_t i = 0; i < r.len; i++)
            r.rows[i].fraction_before = -1;
        tdx_bench_summarize(&r, &u);
        assert_true(u.bound_geomean < 0 && u.bound_median < 0); /* no fraction known: no bound */
        r.rows[0].fraction_before = 0.2;
        r.rows[1].fraction_before = 0.9;
        r.rows[2].fraction_before = fb;
    }
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_bench_markdown(&r, &s, &b), TDX_OK);
    char *golden;
    size_t glen;
    assert_int_equal(tdx_file_read(TDX_TEST_DATA "/bench/canned.md", 1 << 20, &golden, &glen), TDX_OK);
    if (strcmp(golden, tdx_buf_str(&b)) != 0)
        print_error("got:\n%s", tdx_buf_str(&b));
    assert_string_equal(tdx_buf_str(&b), golden);
    free(golden);
    /* a row round-trips through JSON */
    json_t *j = tdx_bench_row_json(&r.rows[0]);
    tdx_bench_results r2 = {0};
    assert_int_equal(tdx_bench_add_json(&r2, j), TDX_OK);
    assert_string_equal(r2.rows[0].families, "single-pass-reduction,retune");
    assert_true(fabs(r2.rows[0].final_s - 0.0001) < 1e-12);
    json_decref(j);
    j = tdx_bench_row_json(&r.rows[2]);
    assert_int_equal(tdx_bench_add_json(&r2, j), TDX_OK);
    assert_true(tdx_bench_looser(&r2.rows[1]));
    assert_true(fabs(r2.rows[1].tolerance_after - 1e-3) < 1e-15);
    json_decref(j);
    tdx_bench_free(&r2);
    tdx_bench_free(&r);
    tdx_buf_free(&b);
}

static void empty_and_bad_inputs(void **state)
{
    (void)state;
    tdx_bench_results r = {0};
    tdx_bench_summary s;
    tdx_bench_summarize(&r, &s);
    assert_int_equal(s.ok, 0);
    assert_true(s.geomean < 0);
    json_t *bad = json_pack("{s:i}", "initial_s", 1);
    assert_int_equal(tdx_bench_add_json(&r, bad), TDX_ERR_INPUT);
    json_decref(bad);
    assert_int_equal(tdx_bench_load(&r, "/nonexistent.json"), TDX_ERR_PARSE);
}

/* Merged slices name a task more than once: a run row beats "not run", and
 * of two run rows the later one stays. */
static void one_row_per_task(void **state)
{
    (void)state;
    tdx_bench_results r = {0};
    const char *rows[] = {
        "{\"task\": \"a.py\", \"status\": \"not run: out of time in this call\"}",
        "{\"task\": \"b.py\", \"status\": \"ok\", \"initial_s\": 2, \"final_s\": 1}",
        "{\"task\": \"a.py\", \"status\": \"ok\", \"initial_s\": 4, \"final_s\": 1}",
        "{\"task\": \"b.py\", \"status\": \"killed after 44 s (its limit)\"}",
        "{\"task\": \"b.py\", \"status\": \"ok\", \"initial_s\": 3, \"final_s\": 1}",
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_t *j = json_loads(rows[i], 0, NULL);
        assert_non_null(j);
        assert_int_equal(tdx_bench_add_json(&r, j), TDX_OK);
        json_decref(j);
    }
    assert_int_equal(r.len, 2);
    assert_string_equal(r.rows[0].task, "a.py");
    assert_string_equal(r.rows[0].status, "ok");
    assert_true(fabs(r.rows[0].initial_s - 4) < 1e-12);
    assert_string_equal(r.rows[1].status, "ok");
    assert_true(fabs(r.rows[1].initial_s - 3) < 1e-12);
    tdx_bench_summary s;
    tdx_bench_summarize(&r, &s);
    assert_int_equal(s.tasks, 2);
    assert_int_equal(s.ok, 2);
    tdx_bench_free(&r);
}

/* The kept families and levels come from the journal's keeps; a confirm
 * that undid them (the result not faster than the task side by side)
 * leaves none. The tolerances: the baseline's, and the last keep's. The
 * roofline fraction before: the baseline's, or the task's beside its
 * result at the end where the confirm has it. */
static void kept_families_from_the_journal(void **state)
{
    (void)state;
    static const char *const tails[] = {"", ", {\"type\": \"confirm\", \"reverted\": false}",
                                        ", {\"type\": \"confirm\", \"reverted\": true}",
                                        ", {\"type\": \"confirm\", \"reverted\": false, \"initial_fraction\": 0.3}"};
    static const char *const fams[] = {"retune,split-k", "retune,split-k", "", "retune,split-k"};
    static const char *const levels[] = {"0,-", "0,-", "", "0,-"};
    for (int i = 0; i < 4; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[{\"type\": \"baseline\", \"fraction\": 0.25, \"tolerance\": 1e-5},"
                 " {\"type\": \"keep\", \"round\": 1, \"family\": \"retune\", \"tolerance\": 1e-5},"
                 " {\"type\": \"round_end\", \"round\": 1, \"decided_level\": 0},"
                 " {\"type\": \"keep\", \"round\": 2, \"family\": \"split-k\", \"tolerance\": 1e-3},"
                 " {\"type\": \"round_end\", \"round\": 2, \"decided_level\": -1}%s]",
                 tails[i]);
        json_t *entries = json_loads(text, 0, NULL);
        assert_non_null(entries);
        tdx_bench_row w = {0};
        w.kept = 2;
        w.levels = strdup("");
        w.families = strdup("");
        tdx_bench_row_from_entries(&w, entries);
        assert_string_equal(w.families, fams[i]);
        assert_string_equal(w.levels, levels[i]);
        assert_int_equal(w.kept, i == 2 ? 0 : 2);
        assert_true(fabs(w.fraction_before - (i == 3 ? 0.3 : 0.25)) < 1e-12);
        assert_true(fabs(w.tolerance_before - 1e-5) < 1e-15);
        assert_true(fabs(w.tolerance_after - (i == 2 ? 0 : 1e-3)) < 1e-15);
        assert_int_equal(tdx_bench_looser(&w), i != 2);
        free(w.levels);
        free(w.families);
        json_decref(entries);
    }
}

/* Rows with the torch columns: eager_ms/compile_ms (and older rows' seconds),
 * which baseline was timed, n/a columns that count neither way. */
static void torch_columns_of_canned_rows(void **state)
{
    (void)state;
    tdx_bench_results r = {0};
    assert_int_equal(tdx_bench_load(&r, TDX_TEST_DATA "/bench/torch_rows.json"), TDX_OK);
    assert_int_equal(r.len, 4);
    assert_true(fabs(r.rows[0].eager_s - 0.00008) < 1e-12);
    assert_true(fabs(r.rows[0].compile_build_s - 8.5) < 1e-12);
    assert_true(r.rows[1].compile_s < 0);
    assert_true(fabs(r.rows[2].eager_s - 0.002) < 1e-12); /* an older row, in seconds */
    assert_string_equal(r.rows[2].torch_baseline, "reference");
    tdx_bench_summary s;
    tdx_bench_summarize(&r, &s);
    assert_int_equal(s.ok, 3);
    assert_int_equal(s.with_eager, 3);
    assert_int_equal(s.faster_eager, 2);
    assert_int_equal(s.with_compile, 2);
    assert_int_equal(s.faster_compile, 0);
    assert_int_equal(s.tie_eager, 0);
    assert_int_equal(s.tie_compile, 0);
    assert_int_equal(s.ref_baseline, 1);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_bench_markdown(&r, &s, &b), TDX_OK);
    char *golden;
    size_t glen;
    assert_int_equal(tdx_file_read(TDX_TEST_DATA "/bench/torch_rows.md", 1 << 20, &golden, &glen), TDX_OK);
    if (strcmp(golden, tdx_buf_str(&b)) != 0)
        print_error("got:\n%s", tdx_buf_str(&b));
    assert_string_equal(tdx_buf_str(&b), golden);
    free(golden);
    tdx_buf_free(&b);
    /* written in milliseconds, read back the same */
    json_t *j = tdx_bench_row_json(&r.rows[0]);
    assert_true(fabs(json_number_value(json_object_get(j, "eager_ms")) - 0.08) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(j, "compile_ms")) - 0.09) < 1e-9);
    assert_string_equal(json_string_value(json_object_get(j, "torch_baseline")), "torch_impl");
    tdx_bench_results r2 = {0};
    assert_int_equal(tdx_bench_add_json(&r2, j), TDX_OK);
    assert_true(fabs(r2.rows[0].compile_s - 0.00009) < 1e-12);
    json_decref(j);
    j = tdx_bench_row_json(&r.rows[1]);
    assert_true(json_number_value(json_object_get(j, "compile_ms")) < 0);
    assert_int_equal(tdx_bench_add_json(&r2, j), TDX_OK);
    assert_true(r2.rows[1].compile_s < 0);
    assert_non_null(strstr(r2.rows[1].torch_note, "no C++ compiler"));
    json_decref(j);
    tdx_bench_free(&r2);
    tdx_bench_free(&r);
}

/* torch timed beside the result at the end of each run: the journal's
 * confirm (or torch_beside, nothing kept) gives the row's beside columns,
 * the summary counts against them apart from the cached columns, and they
 * go through JSON in milliseconds. A row without them counts neither way. */
static void torch_beside_columns(void **state)
{
    (void)state;
    static const char *const journals[] = {
        "[{\"type\": \"keep\", \"round\": 1, \"family\": \"retune\"},"
        " {\"type\": \"confirm\", \"reverted\": false, \"torch_eager_s\": 0.004, \"torch_compile_s\": 0.0011,"
        " \"torch_compile_build_s\": 20.0}]",
        "[{\"type\": \"torch_beside\", \"final_s\": 0.002, \"torch_eager_s\": 0.003, \"torch_compile_s\": 0.00199,"
        " \"torch_compile_build_s\": 9.0}]",
        "[{\"type\": \"torch_beside\", \"reason\": \"no torch column was timed\"}]"};
    /* final times 1 ms (kept), 2 ms and 2 ms (nothing kept); cached torch.compile 0.9 ms for each */
    static const double final_s[] = {0.001, 0.002, 0.002};
    tdx_bench_results r = {0};
    for (int i = 0; i < 3; i++) {
        char row[256];
        snprintf(row, sizeof row, "{\"task\": \"t%d.py\", \"initial_s\": 0.004, \"final_s\": %g, \"compile_ms\": 0.9,"
                 " \"eager_ms\": 5}", i, final_s[i]);
        json_t *o = json_loads(row, 0, NULL);
        assert_int_equal(tdx_bench_add_json(&r, o), TDX_OK);
        json_decref(o);
        tdx_bench_row *w = &r.rows[r.len - 1];
        assert_true(w->compile_beside_s < 0 && w->eager_beside_s < 0);
        json_t *entries = json_loads(journals[i], 0, NULL);
        assert_non_null(entries);
        tdx_bench_row_from_entries(w, entries);
        json_decref(entries);
    }
    assert_true(fabs(r.rows[0].compile_beside_s - 0.0011) < 1e-12);
    assert_true(fabs(r.rows[1].eager_beside_s - 0.003) < 1e-12);
    assert_true(r.rows[2].compile_beside_s < 0 && r.rows[2].eager_beside_s < 0);
    tdx_bench_summary s;
    tdx_bench_summarize(&r, &s);
    assert_int_equal(s.with_compile, 3);
    assert_int_equal(s.faster_compile, 0); /* against the cache: none */
    assert_int_equal(s.with_compile_beside, 2);
    assert_int_equal(s.faster_compile_beside, 1); /* beside: 1 ms against 1.1 */
    assert_int_equal(s.with_eager_beside, 2);
    assert_int_equal(s.faster_eager_beside, 2);
    assert_int_equal(s.tie_compile_beside, 1); /* 2 ms beside 1.99: within 2 % */
    assert_int_equal(s.tie_eager_beside, 0);
    /* torch.compile's compile in those timings: 20 s and 9 s (the third timed none) */
    assert_true(fabs(s.beside_build_median_s - 14.5) < 1e-12 && fabs(s.beside_build_max_s - 20.0) < 1e-12);
    tdx_buf b;
    tdx_buf_init(&b, 0);
    assert_int_equal(tdx_bench_markdown(&r, &s, &b), TDX_OK);
    assert_non_null(strstr(tdx_buf_str(&b), "| timed beside torch at the end of each run: faster than torch eager / "
                                            "torch.compile | 2 / 2, 1 / 2 |\n"));
    assert_non_null(strstr(tdx_buf_str(&b), "| timed beside torch: within 2% of torch eager / torch.compile (a tie "
                                            "either way) | 0 / 1 |\n"));
    assert_non_null(strstr(tdx_buf_str(&b), "| timed beside torch: torch.compile's compile there, median / most | "
                                            "14.5 s / 20.0 s |\n"));
    tdx_buf_free(&b);
    json_t *j = tdx_bench_row_json(&r.rows[0]);
    assert_true(fabs(json_number_value(json_object_get(j, "compile_beside_ms")) - 1.1) < 1e-9);
    assert_true(fabs(json_number_value(json_object_get(j, "eager_beside_ms")) - 4.0) < 1e-9);
    tdx_bench_results r2 = {0};
    assert_int_equal(tdx_bench_add_json(&r2, j), TDX_OK);
    assert_true(fabs(r2.rows[0].compile_beside_s - 0.0011) < 1e-12);
    assert_true(r2.rows[0].compile_beside_build_s == 20.0); /* through the row's JSON */
    json_decref(j);
    j = tdx_bench_row_json(&r.rows[2]);
    assert_null(json_object_get(j, "compile_beside_ms"));
    json_decref(j);
    tdx_bench_free(&r2);
    tdx_bench_free(&r);
}

/* The torch columns from `time --torch-only` replies. */
static void torch_columns_from_replies(void **state)
{
    (void)state;
    tdx_bench_row w;
    memset(&w, 0, sizeof w);
    json_t *ok = json_loads("{\"torch_baseline\": \"torch_impl\", \"torch_eager\": {\"median_ms\": 0.5},"
                            " \"torch_compile\": {\"median_ms\": 0.25, \"compile_s\": 12.5,"
                            " \"backend\": \"inductor\"}}", 0, NULL);
    tdx_bench_torch_from_json(&w, ok);
    assert_true(fabs(w.eager_s - 0.0005) < 1e-12);
    assert_true(fabs(w.compile_s - 0.00025) < 1e-12);
    assert_true(fabs(w.compile_build_s - 12.5) < 1e-12);
    assert_string_equal(w.torch_baseline, "torch_impl");
    assert_string_equal(w.torch_note, "");
    json_decref(ok);
    /* torch.compile failed: n/a with its reason, eager kept */
    json_t *err = json_loads("{\"torch_baseline\": \"reference\", \"torch_eager\": {\"median_ms\": 2},"
                             " \"torch_compile\": {\"error\": \"BackendCompilerFailed: boom\"}}", 0, NULL);
    tdx_bench_torch_from_json(&w, err);
    assert_true(fabs(w.eager_s - 0.002) < 1e-12);
    assert_true(w.compile_s < 0 && w.compile_build_s < 0);
    assert_string_equal(w.torch_baseline, "reference");
    assert_string_equal(w.torch_note, "torch.compile: BackendCompilerFailed: boom");
    json_decref(err);
    /* a stand-in backend runs the whole path, but its time is not torch.compile's: n/a */
    json_t *stub = json_loads("{\"torch_baseline\": \"torch_impl\", \"torch_eager\": {\"median_ms\": 1},"
                              " \"torch_compile\": {\"median_ms\": 1, \"compile_s\": 0.3,"
                              " \"backend\": \"eager\"}}", 0, NULL);
    tdx_bench_torch_from_json(&w, stub);
    assert_true(w.compile_s < 0 && w.eager_s > 0);
    assert_string_equal(w.torch_note, "torch.compile: backend eager, not inductor (1 ms, compiled in 0.3 s)");
    json_decref(stub);
    /* neither torch_impl nor reference */
    json_t *none = json_loads("{\"torch_baseline\": null}", 0, NULL);
    tdx_bench_torch_from_json(&w, none);
    assert_true(w.eager_s < 0 && w.compile_s < 0);
    assert_non_null(strstr(w.torch_note, "neither torch_impl nor reference"));
    json_decref(none);
    /* a harness that cannot run: the columns are n/a with the reason */
    setenv("TDX_PYTHON", "/nonexistent/python3", 1);
    assert_int_not_equal(tdx_bench_torch(&w, TDX_TEST_DATA "/bench/canned.json", "cpu", 10), TDX_OK);
    unsetenv("TDX_PYTHON");
    assert_true(w.eager_s < 0 && w.compile_s < 0);
    assert_non_null(strstr(w.torch_note, "torch baselines: "));
    free(w.torch_baseline);
    free(w.torch_note);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_of_canned_rows),
        cmocka_unit_test(empty_and_bad_inputs),
        cmocka_unit_test(one_row_per_task),
        cmocka_unit_test(kept_families_from_the_journal),
        cmocka_unit_test(torch_columns_of_canned_rows),
        cmocka_unit_test(torch_beside_columns),
        cmocka_unit_test(torch_columns_from_replies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
