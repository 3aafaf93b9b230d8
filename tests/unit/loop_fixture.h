/* What the optimize loop's tests share (test_loop.c, test_loop_confirm.c):
 * a scratch task in a fresh folder, a fake device whose times follow the
 * BLOCK a source launches with, a scripted proposer, the loop's options for
 * them, and readers of the run's journal. Included by one test file each:
 * everything here is static. */
#ifndef TDX_TEST_LOOP_FIXTURE_H
#define TDX_TEST_LOOP_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/file.h"
#include "journal/journal.h"
#include "loop/loop.h"

static char dir[256], task[300], out[300], rundir[300];

/* The fake device: time depends on the BLOCK the source launches with; a
 * source containing "WRONG" fails the check; "CRASH" kills the process. */
static double fake_time(const char *path)
{
    char *s;
    size_t n;
    if (tdx_file_read(path, 1 << 20, &s, &n))
        return -1;
    double t = 10e-3;
    if (strstr(s, "BLOCK=256"))
        t = 5e-3;
    if (strstr(s, "BLOCK=1024"))
        t = 2e-3;
    if (strstr(s, "BLOCK=4096"))
        t = 2.01e-3; /* within the spread of 1024 */
    if (strstr(s, "BLOCK=1024, num_warps=8"))
        t *= 0.5; /* more warps pay at this block only: retune's next step (4096, 8 warps) does not */
    free(s);
    return t;
}

static int crash_on_time = 0;
/* A noisy device: the best so far reads base_bias times its time in each
 * round's timings; side by side with the task (the confirm) the kept source
 * reads confirm_scale times its time. */
static double base_bias = 1.0, confirm_scale = 1.0;
/* the task's own first timing (the baseline, no candidate) reads this
 * times its time */
static double start_scale = 1.0;
static int confirms = 0;
static int noisy_confirms = 0; /* this many confirms read even, with a 10 % IQR */
/* this many candidate timings (not confirms) read noisy_ratio times the
 * base, with a 10 % IQR */
static int noisy_cands = 0;
static double noisy_ratio = 0.95;

static tdx_status fx_check(void *ud, const char *task_path, const char *cand, tdx_loop_check *res)
{
    (void)ud;
    (void)task_path;
    char *s;
    size_t n;
    if (tdx_file_read(cand, 1 << 20, &s, &n))
        return TDX_ERR_IO;
    res->ok = strstr(s, "WRONG") == NULL && strstr(s, "NOREF") == NULL;
    res->task_unfit = strstr(s, "NOREF") != NULL; /* as the harness says task_invalid */
    if (res->task_unfit)
        snprintf(res->reason, sizeof res->reason, "no `reference(*inputs)` function");
    else if (!res->ok)
        snprintf(res->reason, sizeof res->reason, "shape (1000,) seed 0: relative error 1.0 > 1e-05");
    free(s);
    return TDX_OK;
}

static tdx_status fx_time(void *ud, const char *task_path, const char *base, const char *cand,
                          tdx_loop_timing *t)
{
    (void)ud;
    (void)task_path;
    if (crash_on_time && cand && --crash_on_time == 0)
        _exit(9); /* the process dies mid-round */
    int confirm = cand && strcmp(base, task) == 0;
    confirms += confirm;
    t->base_median_s = fake_time(base) * (confirm ? 1.0 : !cand ? start_scale : base_bias);
    t->base_iqr_s = 0.02 * t->base_median_s;
    t->cand_median_s = cand ? fake_time(cand) * (confirm ? confirm_scale : 1.0) : 0;
    t->cand_iqr_s = cand ? 0.02 * t->cand_median_s : 0;
    if (!confirm && cand && noisy_cands > 0) {
        noisy_cands--;
        t->cand_median_s = noisy_ratio * t->base_median_s;
        t->base_iqr_s = t->cand_iqr_s = 0.1 * t->base_median_s;
    }
    if (confirm) { /* of the call: a wait for the GPU lock, then the exclusive hold */
        t->wait_s = 0.25;
        t->timed_s = 0.5;
    }
    if (confirm && noisy_confirms > 0) {
        noisy_confirms--;
        t->cand_median_s = t->base_median_s;
        t->base_iqr_s = t->cand_iqr_s = 0.1 * t->base_median_s;
    }
    t->fraction = cand ? 1e-3 / t->cand_median_s : 1e-3 / t->base_median_s;
    if (cand) { /* the rep-by-rep ratios a GPU timing reports */
        t->ratio_median = t->cand_median_s / t->base_median_s;
        t->ratio_lo = 0.99 * t->ratio_median;
        t->ratio_hi = 1.01 * t->ratio_median;
    }
    return TDX_OK;
}

/* Proposes replacements of the launch's BLOCK / num_warps, and two bad candidates. */
static tdx_status fx_propose(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *outc, tdx_diags *d)
{
    (void)ud;
    (void)d;
    static const char *const blocks[] = {"BLOCK=256", "BLOCK=1024", "BLOCK=4096", "BLOCK=16", "WRONG", "SIG", "BLOCK=1024))"};
    const char *cur = strstr(ctx->src, "BLOCK=");
    if (!cur)
        return TDX_OK;
    size_t cur_len = strcspn(cur, ")");
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
        tdx_buf b;
        tdx_buf_init(&b, 0);
        if (strcmp(blocks[i], "SIG") == 0) {
            const char *p = strstr(ctx->src, "def launch(x):");
            tdx_buf_add(&b, ctx->src, (size_t)(p - ctx->src));
            tdx_buf_adds(&b, "def launch(x, y):");
            tdx_buf_adds(&b, p + strlen("def launch(x):"));
        } else if (strcmp(blocks[i], "WRONG") == 0) {
            tdx_buf_add(&b, ctx->src, ctx->len);
            tdx_buf_adds(&b, "# WRONG\n");
        } else {
            tdx_buf_add(&b, ctx->src, (size_t)(cur - ctx->src));
            tdx_buf_adds(&b, blocks[i]);
            tdx_buf_adds(&b, cur + cur_len);
        }
        if (ctx->round >= 2 && strcmp(blocks[i], "BLOCK=1024") == 0) { /* round 2: more warps */
            tdx_buf_reset(&b);
            const char *p = strstr(ctx->src, ")](x, y, n, BLOCK=");
            const char *e = p ? strstr(p, ")\n") : NULL;
            if (e && !strstr(ctx->src, "num_warps")) {
                tdx_buf_add(&b, ctx->src, (size_t)(e - ctx->src));
                tdx_buf_adds(&b, ", num_warps=8");
                tdx_buf_adds(&b, e);
            } else
                tdx_buf_add(&b, ctx->src, ctx->len);
        }
        size_t n;
        char *s = tdx_buf_detach(&b, &n);
        tdx_loop_cands_push(outc, s, n, "retune", "builtin", blocks[i]);
    }
    return TDX_OK;
}

/* exec.time_torch: fx_time with torch's baseline among the runs, eager and
 * compiled reading these times the task's timing there (0: not timed);
 * the next torch_fails of them fail. */
static double torch_eager_scale = 0.8, torch_compile_scale = 0.5;
static int torch_timings = 0, torch_fails = 0;

static inline tdx_status fx_time_torch(void *ud, const char *task_path, const char *base, const char *cand,
                                       tdx_loop_timing *t)
{
    torch_timings++;
    if (torch_fails > 0) {
        torch_fails--;
        snprintf(t->reason, sizeof t->reason, "torch.compile ran out of time");
        return TDX_ERR_CHILD;
    }
    tdx_status st = fx_time(ud, task_path, base, cand, t);
    t->torch_eager_s = torch_eager_scale * t->base_median_s;
    t->torch_compile_s = torch_compile_scale * t->base_median_s;
    t->torch_compile_build_s = 4.5;
    return st;
}

static int setup(void **state)
{
    (void)state;
    base_bias = confirm_scale = start_scale = 1.0;
    confirms = noisy_confirms = noisy_cands = 0;
    torch_eager_scale = 0.8;
    torch_compile_scale = 0.5;
    torch_timings = torch_fails = 0;
    noisy_ratio = 0.95;
    snprintf(dir, sizeof dir, "/tmp/tdx_loop_%ld", (long)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s && cp %s/loop/scale.py %s/scale.py", dir, dir,
             TDX_TEST_DATA, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(task, sizeof task, "%s/scale.py", dir);
    snprintf(out, sizeof out, "%s/scale.opt.py", dir);
    snprintf(rundir, sizeof rundir, "%s/scale.tdx", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (getenv("TDX_TEST_KEEP"))
        return 0; /* leave the run directory for inspection */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static tdx_loop_opts opts_for(void)
{
    static tdx_loop_proposer prop = {"scripted", fx_propose, NULL};
    tdx_loop_opts o = {0};
    o.task_path = task;
    o.max_rounds = 5;
    o.target_fraction = 0.9;
    o.dx.max_level = 0;
    o.dx.levels[0].run = tdx_dx_level0;
    o.proposers = &prop;
    o.nproposers = 1;
    o.exec.check = fx_check;
    o.exec.time = fx_time;
    return o;
}

static inline void count_verdicts(const char *verdict_reason_sub, int *n)
{
    char jpath[400];
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
    json_t *all;
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_jnl_read(jpath, &all, &d), TDX_OK);
    *n = 0;
    for (size_t i = 0; i < json_array_size(all); i++) {
        const char *r = json_string_value(json_object_get(json_array_get(all, i), "reason"));
        if (r && strstr(r, verdict_reason_sub))
            (*n)++;
    }
    json_decref(all);
    tdx_diags_free(&d);
}

/* The journal's entries of one type, in order (a new reference). */
static inline json_t *entries_of(const char *type)
{
    char jpath[400];
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", rundir);
    json_t *all, *found = json_array();
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_jnl_read(jpath, &all, &d), TDX_OK);
    for (size_t i = 0; i < json_array_size(all); i++) {
        json_t *e = json_array_get(all, i);
        const char *t = json_string_value(json_object_get(e, "type"));
        if (t && strcmp(t, type) == 0)
            json_array_append(found, e);
    }
    json_decref(all);
    tdx_diags_free(&d);
    return found;
}

/* Run the loop to its end, its diagnostics dropped. */
static inline void run_to_end(const tdx_loop_opts *o, tdx_loop_result *res)
{
    tdx_diags d;
    tdx_diags_init(&d);
    assert_int_equal(tdx_loop_run(o, res, &d), TDX_OK);
    tdx_diags_free(&d);
}

#endif
