/* Level 1 tests: data-driven cases in tests/data/profile, plus the
 * occupancy and roofline arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "profile/profile.h"

#define MAXK 8
#define MAXE 16

typedef struct pcase {
    tdx_prof_measure m;
    tdx_prof_ceilings c;
    tdx_prof_launch k[MAXK];
    char kname[MAXK][64];
    tdx_prof_ncu ncu;
    int have_ncu;
    char dtype[32];
    char expect[MAXE][32];
    int nexpect;
    char dominant[32];
    char fam_rule[MAXE][32], fam[MAXE][48]; /* "family RULE NAME": the family it must point to */
    int nfam;
    char gain_rule[MAXE][32];               /* "gain_at_most RULE X" */
    double gain_max[MAXE];
    int ngain;
} pcase;

static void load(pcase *pc, const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char key[64], v1[24];
        if (line[0] == '#' || sscanf(line, "%63s %23s", key, v1) != 2)
            continue;
        double d = atof(v1);
        if (strcmp(key, "include") == 0)
            load(pc, dir, v1);
        else if (strcmp(key, "expect") == 0)
            snprintf(pc->expect[pc->nexpect++], 32, "%s", v1);
        else if (strcmp(key, "dominant") == 0)
            snprintf(pc->dominant, 32, "%s", v1);
        else if (strcmp(key, "family") == 0) {
            assert_int_equal(sscanf(line, "family %31s %47s", pc->fam_rule[pc->nfam], pc->fam[pc->nfam]), 2);
            pc->nfam++;
        } else if (strcmp(key, "gain_at_most") == 0) {
            assert_int_equal(sscanf(line, "gain_at_most %31s %lf", pc->gain_rule[pc->ngain],
                                    &pc->gain_max[pc->ngain]), 2);
            pc->ngain++;
        }
        else if (strcmp(key, "kernel") == 0) {
            size_t i = pc->m.nkernels++;
            tdx_prof_launch *k = &pc->k[i];
            assert_int_equal(sscanf(line, "kernel %63s %ld %ld %ld %d %d %d %d", pc->kname[i], &k->grid[0],
                                    &k->grid[1], &k->grid[2], &k->num_warps, &k->regs, &k->spill_bytes,
                                    &k->shared_bytes),
                             8);
            k->kernel = pc->kname[i];
        } else if (strcmp(key, "median_s") == 0) pc->m.median_s = d;
        else if (strcmp(key, "iqr_s") == 0) pc->m.iqr_s = d;
        else if (strcmp(key, "bytes") == 0) pc->m.bytes = d;
        else if (strcmp(key, "flops") == 0) pc->m.flops = d;
        else if (strcmp(key, "dtype") == 0) snprintf(pc->dtype, sizeof pc->dtype, "%s", v1);
        else if (strcmp(key, "launches") == 0) pc->m.launches = (int)d;
        else if (strcmp(key, "copy_bw") == 0) pc->c.copy_bw = d;
        else if (strcmp(key, "read_bw") == 0) pc->c.read_bw = d;
        else if (strcmp(key, "out_bytes") == 0) pc->m.out_bytes = d;
        else if (strcmp(key, "mm_fp16") == 0) pc->c.mm_fp16 = d;
        else if (strcmp(key, "mm_bf16") == 0) pc->c.mm_bf16 = d;
        else if (strcmp(key, "mm_tf32") == 0) pc->c.mm_tf32 = d;
        else if (strcmp(key, "mm_fp32") == 0) pc->c.mm_fp32 = d;
        else if (strcmp(key, "launch_s") == 0) pc->c.launch_s = d;
        else if (strcmp(key, "sms") == 0) pc->c.sms = (int)d;
        else if (strncmp(key, "ncu_", 4) == 0) {
            pc->have_ncu = 1;
            if (strcmp(key, "ncu_dram_bytes") == 0) pc->ncu.dram_bytes = d;
            else if (strcmp(key, "ncu_sectors_per_request") == 0) pc->ncu.sectors_per_request = d;
            else if (strcmp(key, "ncu_bank_conflict_ratio") == 0) pc->ncu.bank_conflict_ratio = d;
            else if (strcmp(key, "ncu_tensor_pipe_pct") == 0) pc->ncu.tensor_pipe_pct = d;
            else fail_msg("%s: unknown key %s", name, key);
        } else
            fail_msg("%s: unknown key %s", name, key);
    }
    fclose(f);
}

static int run_case(const char *dir, const char *name)
{
    pcase pc;
    memset(&pc, 0, sizeof pc);
    pc.ncu.dram_bytes = pc.ncu.sectors_per_request = pc.ncu.bank_conflict_ratio = -1;
    pc.ncu.tensor_pipe_pct = -1;
    load(&pc, dir, name);
    pc.m.task_file = name;
    pc.m.kernels = pc.k;
    if (pc.dtype[0])
        pc.m.dtype = pc.dtype;
    if (pc.have_ncu)
        pc.m.ncu = &pc.ncu;
    tdx_ledger l;
    tdx_ledger_init(&l);
    int dom = -1;
    assert_int_equal(tdx_prof_diagnose(&pc.m, &pc.c, &l, &dom), TDX_OK);
    int bad = 0;
    int used[MAXE] = {0};
    for (size_t i = 0; i < tdx_ledger_count(&l); i++) {
        const tdx_finding *f = tdx_ledger_at(&l, i);
        int found = 0;
        for (int e = 0; e < pc.nexpect; e++)
            if (!used[e] && strcmp(pc.expect[e], f->rule->id) == 0) {
                used[e] = found = 1;
                break;
            }
        if (!found) {
            print_error("%s: unexpected %s: %s\n", name, f->rule->id, f->message);
            bad++;
        }
    }
    for (int e = 0; e < pc.nexpect; e++)
        if (!used[e]) {
            print_error("%s: missing %s\n", name, pc.expect[e]);
            bad++;
        }
    for (size_t i = 0; i < tdx_ledger_count(&l); i++) {
        const tdx_finding *f = tdx_ledger_at(&l, i);
        for (int k = 0; k < pc.nfam; k++)
            if (strcmp(pc.fam_rule[k], f->rule->id) == 0 && strcmp(pc.fam[k], f->family) != 0) {
                print_error("%s: %s points to %s, expected %s\n", name, f->rule->id, f->family, pc.fam[k]);
                bad++;
            }
        for (int k = 0; k < pc.ngain; k++)
            if (strcmp(pc.gain_rule[k], f->rule->id) == 0 && f->expected_gain > pc.gain_max[k]) {
                print_error("%s: %s expects %.3gx, more than %.3gx\n", name, f->rule->id, f->expected_gain,
                            pc.gain_max[k]);
                bad++;
            }
    }
    const char *dom_rule = dom > 0 ? tdx_ledger_at(&l, (size_t)dom - 1)->rule->id : "none";
    if (strcmp(dom_rule, pc.dominant[0] ? pc.dominant : "none") != 0) {
        print_error("%s: dominant %s, expected %s\n", name, dom_rule, pc.dominant);
        bad++;
    }
    tdx_ledger_free(&l);
    return bad;
}

static void data_driven_cases(void **state)
{
    (void)state;
    const char *dir = TDX_TEST_DATA "/profile";
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    int ncases = 0, bad = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".case") == 0) {
            ncases++;
            bad += run_case(dir, e->d_name);
        }
    }
    closedir(d);
    assert_true(ncases >= 10);
    assert_int_equal(bad, 0);
}

static void occupancy_matches_hand_count(void **state)
{
    (void)state;
    tdx_prof_occupancy o;
    /* 4 warps, 32 regs: 1024 regs per warp -> 64 warps by registers, 16 CTAs by the 64-warp limit */
    tdx_prof_launch k = {.kernel = "k", .grid = {1000, 0, 0}, .num_warps = 4, .regs = 32};
    assert_int_equal(tdx_prof_occupancy_of(&k, 132, &o), TDX_OK);
    assert_int_equal(o.ctas_per_sm, 16);
    assert_string_equal(o.limiter, "warps");
    assert_true(fabs(o.occupancy - 1.0) < 1e-9);
    /* 255 regs round to 8192 per warp: 8 warps per SM */
    k.num_warps = 8;
    k.regs = 255;
    assert_int_equal(tdx_prof_occupancy_of(&k, 132, &o), TDX_OK);
    assert_int_equal(o.ctas_per_sm, 1);
    assert_string_equal(o.limiter, "registers");
    /* shared memory above the per-CTA maximum does not fit at all */
    k.regs = 32;
    k.shared_bytes = 300000;
    assert_int_equal(tdx_prof_occupancy_of(&k, 132, &o), TDX_OK);
    assert_int_equal(o.ctas_per_sm, 0);
    assert_string_equal(o.limiter, "shared memory");
    /* unknown warps is an argument error */
    k.num_warps = 0;
    assert_int_equal(tdx_prof_occupancy_of(&k, 132, &o), TDX_ERR_ARG);
}

static void roofline_picks_the_larger_time(void **state)
{
    (void)state;
    tdx_prof_ceilings c = {.copy_bw = 4e12, .mm_fp16 = 8e14, .mm_tf32 = 4e14, .launch_s = 2e-6};
    tdx_prof_measure m = {.median_s = 1e-3, .bytes = 2e9, .flops = 1e11, .dtype = "fp16"};
    tdx_prof_roofline r;
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_int_equal(r.bound, TDX_PROF_MEMORY);
    assert_true(fabs(r.fraction - 0.5) < 1e-9);
    m.flops = 8e11; /* 1 ms on tensor cores vs 0.5 ms of bytes */
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_int_equal(r.bound, TDX_PROF_COMPUTE);
    assert_true(fabs(r.fraction - 1.0) < 1e-9);
    m.dtype = "fp32"; /* fp32 dots run as tf32 by default */
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_true(fabs(r.t_compute_s - 2e-3) < 1e-12);
    /* with a read bandwidth and the output bytes: reads at read_bw, writes
     * at what the copy leaves for them (2 / copy - 1 / read a byte) */
    m.flops = 0;
    m.dtype = NULL;
    c.read_bw = 5e12;
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_true(fabs(r.t_mem_s - 5e-4) < 1e-12); /* outputs unknown: the copy's rate */
    m.out_bytes = 1e9; /* as much written as read: a copy */
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_true(fabs(r.t_mem_s - 5e-4) < 1e-12);
    m.out_bytes = 0.5e9; /* 1.5e9 read at 5e12, 0.5e9 written at 1 / 3e-13 */
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_true(fabs(r.t_mem_s - 4.5e-4) < 1e-12);
    assert_true(fabs(r.fraction - 0.45) < 1e-9);
    c.read_bw = 3e12; /* slower reads than the copy: not believed, the copy's rate */
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_OK);
    assert_true(fabs(r.t_mem_s - 5e-4) < 1e-12);
    m.median_s = 0;
    assert_int_equal(tdx_prof_roofline_of(&m, &c, &r), TDX_ERR_ARG);
}

/* A real `capture` reply (bench/tasks/col_sum.py, AOT for sm_90) feeds the
 * occupancy model: 32768 CTAs of 4 warps, 20 registers. */
static void launches_from_a_capture_reply(void **state)
{
    (void)state;
    json_error_t err;
    json_t *j = json_load_file(TDX_TEST_DATA "/profile/capture_col_sum.json", 0, &err);
    assert_non_null(j);
    tdx_prof_launch k[4];
    int launches = 0;
    assert_int_equal(tdx_prof_launches_from_capture(j, k, 4, &launches), 1);
    assert_int_equal(launches, 1);
    assert_string_equal(k[0].kernel, "col_sum_kernel");
    assert_int_equal(k[0].grid[0], 32768);
    assert_int_equal(k[0].num_warps, 4);
    assert_int_equal(k[0].regs, 20);
    assert_int_equal(k[0].spill_bytes, 0);
    tdx_prof_occupancy o;
    assert_int_equal(tdx_prof_occupancy_of(&k[0], 132, &o), TDX_OK);
    assert_int_equal(o.ctas_per_sm, 16);
    json_decref(j);
}

/* A real `ncu` reply (softmax_long on the H200): the metrics it measured map
 * across; the ones it did not stay negative. */
static void ncu_from_a_real_reply(void **state)
{
    (void)state;
    json_error_t err;
    json_t *j = json_load_file(TDX_TEST_DATA "/profile/ncu_softmax_long.json", 0, &err);
    assert_non_null(j);
    tdx_prof_ncu n;
    assert_int_equal(tdx_prof_ncu_from_json(j, &n), TDX_OK);
    assert_true(fabs(n.sectors_per_request - 16.0) < 1e-9);
    assert_true(fabs(n.dram_pct - 85.64) < 1e-6);
    assert_true(fabs(n.achieved_occupancy - 91.43) < 1e-6);
    assert_true(n.dram_bytes < 0);          /* not in that reply */
    assert_true(n.bank_conflict_ratio < 0); /* no instruction counts in that reply */
    json_t *empty = json_pack("{s:[]}", "kernels");
    assert_int_equal(tdx_prof_ncu_from_json(empty, &n), TDX_ERR_INPUT);
    json_decref(empty);
    json_decref(j);
}

static void formatting(void **state)
{
    (void)state;
    char b[32];
    tdx_prof_fmt_rate(b, sizeof b, 4.25e12, "B/s");
    assert_string_equal(b, "4.25 TB/s");
    tdx_prof_fmt_time(b, sizeof b, 1.5e-5);
    assert_string_equal(b, "15 us");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(data_driven_cases),
        cmocka_unit_test(occupancy_matches_hand_count),
        cmocka_unit_test(roofline_picks_the_larger_time),
        cmocka_unit_test(formatting),
        cmocka_unit_test(launches_from_a_capture_reply),
        cmocka_unit_test(ncu_from_a_real_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
