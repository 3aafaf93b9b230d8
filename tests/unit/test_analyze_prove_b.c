/* Level 3 proofs through the real harness (part b): num_warps and wgmma,
 * num_stages and pipelining, num_warps and spills, tl.range stages, an
 * fp32 dot operand passed K-major, an atomic made relaxed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "base/file.h"
#include "test_analyze_prove.h"

static void test_warps_wgmma(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("warps2", "TDX303", 1, &l, &cost);
    expect_proven(f, &l, "path mma.sync", "path wgmma");
    assert_string_equal(tdx_finding_get_fact(f, "counterfactual"), "num_warps 2 -> 4");
    tdx_ledger_free(&l);
}

static void test_stages_pipelined(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("stages1", "TDX305", 1, &l, &cost);
    expect_proven(f, &l, "pipelined no", "pipelined yes");
    assert_non_null(strstr(f->evidence, "ttg.async_copy_global_to_local"));
    tdx_ledger_free(&l);
}

// Spills; with Triton's nvdisasm at hand (TDX_NVDISASM) the SASS puts the
// local-memory traffic at its source line.
static void test_spills_warps(void **state)
{
    (void)state;
    char nvdisasm[4096] = "";
    FILE *p = popen("python3 -c 'import triton,os;print(os.path.dirname(triton.__file__))'", "r");
    assert_non_null(p);
    if (fgets(nvdisasm, sizeof nvdisasm - 40, p))
        nvdisasm[strcspn(nvdisasm, "\n")] = '\0';
    pclose(p);
    strcat(nvdisasm, "/backends/nvidia/bin/nvdisasm");
    setenv("TDX_NVDISASM", nvdisasm, 1);
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("bigblock", "TDX308", 1, &l, &cost);
    unsetenv("TDX_NVDISASM");
    expect_proven(f, &l, "bytes spill stores", " 0 bytes spill stores, 0 bytes spill loads");
    assert_non_null(strstr(f->message, "-> 0 B"));
    const tdx_finding *l2 = tdx_ledger_at(&l, (size_t)f->cites[0] - 1);
    assert_string_equal(l2->rule->id, "TDX204");
    assert_non_null(strstr(l2->evidence, "sass: line "));
    assert_true(l2->line > 8); /* a line of the body, not the def */
    tdx_ledger_free(&l);
}

// A loop whose load feeds no dot: tl.range(..., num_stages=3) in the source
// gets it pipelined.
static void test_range_stages(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("rowloop", "TDX307", 1, &l, &cost);
    expect_proven(f, &l, "pipelined no", "pipelined yes");
    tdx_ledger_free(&l);
}

// Two halves a thread: BLOCK raised to 1024 gives each load a 128-bit vector.
static void test_block_caps_vector(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("narrow", "TDX314", 1, &l, &cost);
    expect_proven(f, &l, "ld.global.b32", "ld.global.v4.b32");
    assert_string_equal(tdx_finding_get_fact(f, "counterfactual"), "BLOCK 256 -> 1024");
    assert_string_equal(f->family, "retune");
    tdx_ledger_free(&l);
}

// Three stages of 128x256x128 fp16 tiles pipeline, but need more shared
// memory than a CTA may use: the limit is reported on top of the proof.
static void test_smem_limit(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("bigtile", "TDX310", 1, &l, &cost);
    assert_non_null(f);
    assert_true(atoi(tdx_finding_get_fact(f, "shared")) > TDX_AN_SM90_SMEM_PER_CTA);
    assert_int_equal(f->ncites, 1);
    const tdx_finding *proof = tdx_ledger_at(&l, (size_t)f->cites[0] - 1);
    assert_string_equal(proof->rule->id, "TDX305");
    assert_string_equal(tdx_finding_get_fact(proof, "outcome"), "proven");
    assert_true(proof->confidence < f->confidence);
    assert_non_null(strstr(f->evidence, "limit 232448 B"));
    tdx_ledger_free(&l);
}

// A tf32 operand read N-contiguous: the copy into its K-major shared layout
// moves 4 bytes at a time; passed K-major (one copy on the launch's line) the
// copies are 16 bytes wide.
static void test_operand_k_major(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("tf32_rowmajor_b", "TDX312", 1, &l, &cost);
    expect_proven(f, &l, "of 4 bytes at the line", "of 16 bytes at the line");
    assert_string_equal(tdx_finding_get_fact(f, "result"), "copies 4 -> 16 bytes (48 -> 12 cp.async at the line)");
    assert_string_equal(f->rule->family, "operand-layout");
    tdx_ledger_free(&l);
}

// An atomic left at the default acq_rel order in a kernel that only
// accumulates through it: recompiled with sem="relaxed" the PTX atomics at
// the line are relaxed.
static void test_atomic_relaxed(void **state)
{
    (void)state;
    tdx_ledger l;
    tdx_ledger_init(&l);
    tdx_dx_cost cost = {0};
    const tdx_finding *f = prove("scatter_acqrel", "TDX313", 3, &l, &cost); /* its narrow tile and the loop's pipelining first */
    expect_proven(f, &l, "1 atomic at the line, 1 acq_rel", "1 atomic at the line, 0 acq_rel");
    assert_string_equal(tdx_finding_get_fact(f, "result"),
                        "1 atom.global.gpu.acq_rel.add.v2.f32 -> 1 atom.global.gpu.relaxed.add.v2.f32 at the line");
    assert_string_equal(f->rule->family, "relax-atomics");
    const tdx_finding *l2 = tdx_ledger_at(&l, (size_t)f->cites[0] - 1);
    assert_string_equal(l2->rule->id, "TDX208");
    assert_int_equal(l2->line, 17);
    tdx_ledger_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warps_wgmma),
        cmocka_unit_test(test_stages_pipelined),
        cmocka_unit_test(test_spills_warps),
        cmocka_unit_test(test_range_stages),
        cmocka_unit_test(test_block_caps_vector),
        cmocka_unit_test(test_smem_limit),
        cmocka_unit_test(test_operand_k_major),
        cmocka_unit_test(test_atomic_relaxed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
