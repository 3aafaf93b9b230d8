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
    assert_true(fabs(s.seconds - 195) < 1e-9);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summary_of_canned_rows),
        cmocka_unit_test(empty_and_bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
