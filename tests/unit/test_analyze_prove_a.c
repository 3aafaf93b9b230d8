/* Level 3 proofs through the real harness (part a): lost divisibility,
 * an fp32 ieee dot, a hypothesis that the compile refutes, the tile's M. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/file.h"
#include "test_analyze_prove.h"

// do_not_specialize on the stride: divisibility on it gives ld.global.v4.
static void test_lost_divisibility(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("lostdiv", "TDX300", 2, &l, &cost);
    expect_proven(f, &l, "ld.global.b32", "ld.global.v4.b32");
    assert_string_equal(tdx_finding_get_fact(f, "counterfactual"), "tt.divisibility = 16 on stride");
    /* the store at line 14 widened too: the diff of the joined records says so */
    assert_non_null(strstr(f->evidence, "changed records"));
    assert_non_null(strstr(f->evidence, "store line=14 col=42: contig 1 -> 4"));
    assert_string_equal(f->family, "alignment-hints");
    assert_int_equal(cost.compiles, 2); /* as launched, and one counterfactual */
    tdx_ledger_free(&l);
}

// input_precision="ieee" in the source: the edit to tf32 gives wgmma.
static void test_ieee_dot(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("ieee_dot", "TDX302", 2, &l, &cost);
    expect_proven(f, &l, "path fma", "path wgmma");
    assert_string_equal(f->family, "tensor-cores");
    tdx_ledger_free(&l);
}

// Misaligned pointers and an odd bound: divisibility on one pointer alone
// leaves the masked loads scalar, and the finding says so.
static void test_refuted(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("misaligned", "TDX300", 1, &l, &cost);
    assert_non_null(f);
    assert_string_equal(tdx_finding_get_fact(f, "outcome"), "refuted");
    assert_int_equal(f->sev, TDX_SEV_NOTE);
    assert_true(f->confidence < 0.5);
    assert_non_null(strstr(f->message, "not confirmed: "));
    assert_non_null(strstr(f->message, "vec 1 -> 1"));
    /* the budget of one compile leaves the other hypotheses untested */
    int untested = 0;
    for (size_t i = 0; i < tdx_ledger_count(&l); i++) {
        const char *o = tdx_finding_get_fact(tdx_ledger_at(&l, i), "outcome");
        untested += o && strcmp(o, "untested") == 0;
    }
    assert_true(untested >= 1);
    tdx_ledger_free(&l);
}

// A 32-row tile with 4 warps: raising the BM constexpr to 64 gives wgmma;
// the same with the rows a constexpr named R.
static void test_tile_m(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("tile32", "TDX304", 1, &l, &cost);
    expect_proven(f, &l, "path mma.sync", "path wgmma");
    assert_string_equal(tdx_finding_get_fact(f, "counterfactual"), "BM 32 -> 64");
    tdx_ledger_free(&l);
    /* the rows a constexpr whose name has no M: the only one of 32 */
    tdx_ledger_init(&l);
    f = prove("tile32_rows", "TDX304", 1, &l, &cost);
    expect_proven(f, &l, "path mma.sync", "path wgmma");
    assert_string_equal(tdx_finding_get_fact(f, "counterfactual"), "R 32 -> 64");
    tdx_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_divisibility),
        cmocka_unit_test(test_ieee_dot),
        cmocka_unit_test(test_refuted),
        cmocka_unit_test(test_tile_m),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
