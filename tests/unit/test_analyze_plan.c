/* Level 3 without Python: the hypothesis and the single change planned for
 * each IR fixture, and the before/after check on pairs of fixtures that
 * differ by exactly that change (tests/data/ir/<case>/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/analyze.h"
#include "base/file.h"

static void load_case(const char *name, tdx_an_capture *c)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/ir/%s", TDX_TEST_DATA, name);
    tdx_an_capture_init(c);
    assert_int_equal(tdx_an_capture_add_dir(c, dir, NULL), TDX_OK);
}

// Plans for one fixture after its level 2 findings; the kernel source is
// read for source-level changes (input precision) unless no_src.
static size_t plan_case_src(const char *name, int no_src, tdx_an_plan *plans, size_t max, tdx_an_capture *c,
                            tdx_ledger *l)
{
    load_case(name, c);
    tdx_ledger_init(l);
    assert_int_equal(tdx_an_attribute(&c->kernels[0], NULL, l), TDX_OK);
    char path[4096];
    snprintf(path, sizeof path, "%s/ir/%s", TDX_TEST_DATA, c->kernels[0].file);
    char *src = NULL;
    size_t len = 0;
    if (!no_src)
        tdx_file_read(path, 1 << 20, &src, &len);
    size_t n = tdx_an_plan_all(l, c, src, len, plans, max);
    free(src);
    return n;
}

static size_t plan_case(const char *name, tdx_an_plan *plans, size_t max, tdx_an_capture *c, tdx_ledger *l)
{
    return plan_case_src(name, 0, plans, max, c, l);
}

// One fixture: exactly one plan with this rule, prediction and arguments.
static void expect_plan(const char *name, const char *rule, tdx_an_predict pred, const char *arg0,
                        const char *arg1)
{
    tdx_an_plan plans[8];
    tdx_an_capture c;
    tdx_ledger l;
    size_t n = plan_case(name, plans, 8, &c, &l);
    if (n != 1 || strcmp(plans[0].rule, rule) != 0)
        fprintf(stderr, "%s: %zu plans, first %s\n", name, n, n ? plans[0].rule : "-");
    assert_int_equal(n, 1);
    assert_string_equal(plans[0].rule, rule);
    assert_int_equal(plans[0].predict, pred);
    assert_true(plans[0].cause[0] && plans[0].title[0]);
    if (arg0) {
        assert_int_equal(plans[0].nargs, 2);
        assert_string_equal(plans[0].args[0], arg0);
        assert_string_equal(plans[0].args[1], arg1);
    } else {
        assert_int_equal(plans[0].nargs, 0);
    }
    assert_true(plans[0].nfindings >= 1);
    tdx_ledger_free(&l);
    tdx_an_capture_free(&c);
}

static void test_plan_vectorization(void **state)
{
    (void)state;
    /* stride reaches the address and has no divisibility; the mask bound does */
    expect_plan("scale_rows_lostdiv", "TDX300", TDX_AN_PRED_VEC_UP, "--set-divisibility",
                "scale_rows_kernel:stride");
    /* pointers aligned, n not divisible: only the mask's constancy is in the way */
    tdx_an_plan plans[8];
    tdx_an_capture c;
    tdx_ledger l;
    size_t n = plan_case("add_mask_nodiv", plans, 8, &c, &l);
    assert_int_equal(n, 1); /* the three accesses share the one change */
    assert_string_equal(plans[0].rule, "TDX301");
    assert_string_equal(plans[0].args[1], "add_kernel:n");
    assert_int_equal(plans[0].nfindings, 3);
    tdx_ledger_free(&l);
    tdx_an_capture_free(&c);
}

static void test_plan_dots_loops_spills(void **state)
{
    (void)state;
    expect_plan("dot_fp16_mma2", "TDX303", TDX_AN_PRED_DOT_WGMMA, "--num-warps", "4");
    expect_plan("dot_fp16_wgmma_s1", "TDX305", TDX_AN_PRED_PIPELINED, "--num-stages", "3");
    expect_plan("bigblock_spill", "TDX308", TDX_AN_PRED_NO_SPILLS, "--num-warps", "4");
    expect_plan("matmul_outer_loop", "TDX306", TDX_AN_PRED_NONE, NULL, NULL);
    /* loads that feed no dot: a source edit asks the loop for stages */
    expect_plan("rowsum_loop", "TDX307", TDX_AN_PRED_PIPELINED, NULL, NULL);
    expect_plan("colsum", "TDX309", TDX_AN_PRED_NONE, NULL, NULL);
    expect_plan("index64", "TDX311", TDX_AN_PRED_NONE, NULL, NULL);
    /* a tile too small for its threads: the block constexpr raised to 16 bytes a thread */
    expect_plan("gelu_fp16_b256", "TDX314", TDX_AN_PRED_VEC_UP, "--constexpr", "gelu_kernel:BLOCK=1024");
    expect_plan("branch_while", "TDX314", TDX_AN_PRED_VEC_UP, "--constexpr", "branch_kernel:BLOCK=512");
    /* the fp32 ieee dot, its precision a constexpr: changed at the launch */
    expect_plan("dot_fp32_ieee", "TDX302", TDX_AN_PRED_DOT_TC, "--constexpr", "matmul_kernel:PRECISION=tf32");
    tdx_an_plan plans[8];
    tdx_an_capture c;
    tdx_ledger l;
    size_t n = plan_case("index64", plans, 8, &c, &l);
    assert_string_equal(plans[0].title, "indices are widened to int64 at lines 47, 48, 50 and by the int64 "
                                        "argument stride");
    tdx_ledger_free(&l);
    tdx_an_capture_free(&c);
    n = plan_case("rowsum_loop", plans, 8, &c, &l);
    assert_int_equal(n, 1);
    assert_int_equal(plans[0].edit_line, 51);
    assert_string_equal(plans[0].edit_from, "range(0, ncols, BLOCK)");
    assert_string_equal(plans[0].edit_to, "tl.range(0, ncols, BLOCK, num_stages=3)");
    tdx_ledger_free(&l);
    tdx_an_capture_free(&c);
    /* clean kernels: nothing to explain */
    const char *clean[] = {"add_v4", "dot_fp16_wgmma_s3", "dot_fp32_tf32", "layernorm", "gelu_fp16"};
    for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++) {
        n = plan_case(clean[i], plans, 8, &c, &l);
        assert_int_equal(n, 0);
        tdx_ledger_free(&l);
        tdx_an_capture_free(&c);
    }
}

// Two constexprs with the tile's value (ROWS = BLOCK = 128): the source's
// tl.arange names the one to raise; without the source none is raised.
static void test_plan_tile_name(void **state)
{
    (void)state;
    for (int no_src = 0; no_src <= 1; no_src++) {
        tdx_an_plan plans[8];
        tdx_an_capture c;
        tdx_ledger l;
        size_t n = plan_case_src("rows_scale_eq", no_src, plans, 8, &c, &l);
        const tdx_an_plan *p = NULL;
        for (size_t i = 0; i < n; i++)
            if (strcmp(plans[i].rule, "TDX314") == 0)
                p = &plans[i];
        assert_non_null(p);
        if (!no_src) {
            assert_int_equal(p->predict, TDX_AN_PRED_VEC_UP);
            assert_int_equal(p->nargs, 2);
            assert_string_equal(p->args[1], "rows_scale_kernel:BLOCK=512");
            assert_string_equal(p->change, "BLOCK 128 -> 512");
        } else {
            assert_int_equal(p->predict, TDX_AN_PRED_NONE);
            assert_int_equal(p->nargs, 0);
            assert_non_null(strstr(p->cause, "2 constexprs equal the tile's 128"));
        }
        tdx_ledger_free(&l);
        tdx_an_capture_free(&c);
    }
}

// Check the prediction of a plan on a pair of fixtures.
static int check_pair(const char *before, const char *after, tdx_an_predict pred, int line, int store,
                      char *result, size_t rlen, tdx_buf *ev)
{
    tdx_an_capture b, a;
    load_case(before, &b);
    load_case(after, &a);
    tdx_an_plan p;
    memset(&p, 0, sizeof p);
    p.rule = "TDX300";
    p.predict = pred;
    p.line = line;
    p.store = store;
    snprintf(p.change, sizeof p.change, "the change");
    int ok = tdx_an_check(&p, &b.kernels[0], &a.kernels[0], ev, result, rlen);
    tdx_an_capture_free(&b);
    tdx_an_capture_free(&a);
    return ok;
}

static void test_check_pairs(void **state)
{
    (void)state;
    char r[256];
    tdx_buf ev;
    tdx_buf_init(&ev, 0);
    assert_int_equal(check_pair("add_nodiv", "add_v4", TDX_AN_PRED_VEC_UP, 18, 0, r, sizeof r, &ev), 1);
    assert_string_equal(r, "load vec 1 -> 4 (ld.global.v4.b32)");
    assert_non_null(strstr(tdx_buf_str(&ev), "as launched:\n"));
    assert_non_null(strstr(tdx_buf_str(&ev), "ld.global.b32"));
    assert_non_null(strstr(tdx_buf_str(&ev), "with the change:\n"));
    assert_non_null(strstr(tdx_buf_str(&ev), "ld.global.v4.b32"));
    tdx_buf_reset(&ev);
    assert_int_equal(check_pair("add_nodiv", "add_v4", TDX_AN_PRED_VEC_UP, 20, 1, r, sizeof r, &ev), 1);
    /* gelu at BLOCK=256 and at 1024: the same load, one b32 a thread, then four */
    assert_int_equal(check_pair("gelu_fp16_b256", "gelu_fp16", TDX_AN_PRED_VEC_UP, 28, 0, r, sizeof r, NULL), 1);
    assert_string_equal(r, "load vec 1 -> 4 (ld.global.L1::evict_first.L2::cache_hint.v4.b32)");
    /* an unchanged compile refutes */
    assert_int_equal(check_pair("add_mask_nodiv", "add_mask_nodiv", TDX_AN_PRED_VEC_UP, 18, 0, r, sizeof r, NULL),
                     0);
    assert_string_equal(r, "load vec 1 -> 1 (ld.global.b32)");
    assert_int_equal(check_pair("dot_fp32_ieee", "dot_fp32_tf32", TDX_AN_PRED_DOT_TC, 22, 0, r, sizeof r, NULL), 1);
    assert_string_equal(r, "dot fma -> wgmma");
    assert_int_equal(check_pair("dot_fp16_mma2", "dot_fp16_wgmma_s3", TDX_AN_PRED_DOT_WGMMA, 22, 0, r, sizeof r,
                                NULL),
                     1);
    /* mma.sync is tensor cores but not wgmma */
    assert_int_equal(check_pair("dot_fp16_mma2", "dot_fp16_mma2", TDX_AN_PRED_DOT_WGMMA, 22, 0, r, sizeof r, NULL),
                     0);
    assert_int_equal(check_pair("dot_fp16_mma2", "dot_fp16_mma2", TDX_AN_PRED_DOT_TC, 22, 0, r, sizeof r, NULL), 1);
    tdx_buf_reset(&ev);
    assert_int_equal(check_pair("dot_fp16_wgmma_s1", "dot_fp16_wgmma_s3", TDX_AN_PRED_PIPELINED, 19, 0, r, sizeof r,
                                &ev),
                     1);
    assert_non_null(strstr(tdx_buf_str(&ev), "async_copy_global_to_local"));
    assert_int_equal(check_pair("bigblock_spill", "bigblock_spill", TDX_AN_PRED_NO_SPILLS, 64, 0, r, sizeof r, NULL),
                     0);
    assert_string_equal(r, "spills 144 B -> 144 B, registers 255 -> 255");
    tdx_buf_free(&ev);
}

static void test_record(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_finding *l2 = tdx_ledger_add(&l, "TDX202", "k.py", 22, 25, "dot off wgmma");
    tdx_an_plan p;
    memset(&p, 0, sizeof p);
    p.findings[p.nfindings++] = l2->id;
    p.rule = "TDX303";
    p.kernel = "k";
    p.file = "k.py";
    p.line = 22;
    p.col = 25;
    p.gain = 2.0;
    snprintf(p.title, sizeof p.title, "num_warps = 2 is not a multiple of 4");
    snprintf(p.cause, sizeof p.cause, "wgmma runs on warp groups");
    snprintf(p.change, sizeof p.change, "num_warps 2 -> 4");
    tdx_finding *f = tdx_an_record(&l, &p, 1, "dot mma.sync -> wgmma", "as launched:\n");
    assert_string_equal(f->message, "num_warps = 2 is not a multiple of 4: proven, dot mma.sync -> wgmma with "
                                    "num_warps 2 -> 4");
    assert_int_equal(f->level, 3);
    assert_int_equal(f->sev, TDX_SEV_WARNING);
    assert_true(f->confidence >= 0.7);
    assert_string_equal(f->family, "retune");
    assert_int_equal(f->ncites, 1);
    assert_int_equal(f->cites[0], l2->id);
    assert_string_equal(tdx_finding_get_fact(f, "outcome"), "proven");
    assert_true(tdx_dx_decides(f, 0.7));
    f = tdx_an_record(&l, &p, 0, "dot mma.sync -> mma.sync", NULL);
    assert_string_equal(f->message, "not confirmed: num_warps = 2 is not a multiple of 4: dot mma.sync -> mma.sync "
                                    "with num_warps 2 -> 4");
    assert_int_equal(f->sev, TDX_SEV_NOTE);
    assert_true(f->confidence < 0.5);
    assert_false(tdx_dx_decides(f, 0.7));
    assert_string_equal(tdx_finding_get_fact(f, "outcome"), "refuted");
    f = tdx_an_record(&l, &p, -1, "the budget of counterfactual compiles is spent", NULL);
    assert_string_equal(tdx_finding_get_fact(f, "outcome"), "untested");
    assert_false(tdx_dx_decides(f, 0.7));
    tdx_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_vectorization),
        cmocka_unit_test(test_plan_dots_loops_spills),
        cmocka_unit_test(test_plan_tile_name),
        cmocka_unit_test(test_check_pairs),
        cmocka_unit_test(test_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
