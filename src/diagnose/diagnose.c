/* Escalation across the four levels. */
#include "diagnose/diagnose.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/arena.h"
#include "source/ast.h"
#include "triage/triage.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int tdx_dx_decides(const tdx_finding *f, double min_confidence)
{
    return f->family && f->family[0] && f->hypothesis && f->hypothesis[0] &&
           f->confidence >= min_confidence && f->sev >= TDX_SEV_WARNING;
}

tdx_status tdx_dx_level0(void *ud, const char *task_path, const char *src, size_t len,
                         tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                         tdx_diags *diags)
{
    (void)ud;
    (void)cost;
    size_t k0 = ledger->kernels.len;
    tdx_status st = tdx_tri_source(task_path, src, len, ledger, diags);
    if (st == TDX_OK && ledger->kernels.len == k0) {
        /* nothing for any level to look at: said once, before a capture runs */
        snprintf(why, why_len, "no @triton.jit kernel found: nothing to diagnose");
        tdx_diags_add(diags, TDX_SEV_ERROR, task_path, 0, 0, "%s", why);
        return TDX_ERR_INPUT;
    }
    return st;
}

int tdx_dx_task_like(const char *path, const char *src, size_t len)
{
    static const char *const names[] = {"launch", "reference", "make_inputs", "Model", "get_inputs"};
    tdx_arena arena;
    tdx_arena_init(&arena, 0);
    tdx_diags quiet;
    tdx_diags_init(&quiet);
    tdx_src_module *m = NULL;
    int yes = tdx_src_parse(path, src, len, &arena, &quiet, &m) != TDX_OK || !m;
    for (size_t i = 0; !yes && i < sizeof names / sizeof names[0]; i++)
        yes = tdx_src_binds(m, names[i]);
    tdx_diags_free(&quiet);
    tdx_arena_free(&arena);
    return yes;
}

tdx_status tdx_dx_run(const tdx_dx_opts *opts, const char *task_path, const char *src, size_t len,
                      tdx_ledger *ledger, tdx_dx_report *rep, tdx_diags *diags)
{
    memset(rep, 0, sizeof *rep);
    rep->decided_level = -1;
    double min_conf = opts->decide_confidence > 0 ? opts->decide_confidence : 0.7;
    int max_level = opts->max_level < 0 ? 0 : opts->max_level > 3 ? 3 : opts->max_level;
    tdx_status result = TDX_OK;
    int task = -1; /* levels 1-3 can run it; -1 not asked yet */
    for (int lv = 0; lv <= max_level; lv++) {
        const tdx_dx_level *L = &opts->levels[lv];
        if (!L->run) {
            rep->state[lv] = TDX_DX_SKIPPED;
            snprintf(rep->why[lv], sizeof rep->why[lv], "level %d is not available in this build", lv);
            continue;
        }
        if (lv > 0 && task < 0)
            task = tdx_dx_task_like(task_path, src, len);
        if (lv > 0 && !task) {
            rep->state[lv] = TDX_DX_SKIPPED;
            snprintf(rep->why[lv], sizeof rep->why[lv],
                     "%s, and this level runs the kernel through them (README, \"Task format\")",
                     TDX_DX_NOT_A_TASK);
            continue;
        }
        size_t before = tdx_ledger_count(ledger);
        double t0 = now_s();
        tdx_status st = L->run(L->ud, task_path, src, len, ledger, &rep->cost[lv], rep->why[lv],
                               sizeof rep->why[lv], diags);
        rep->cost[lv].seconds += now_s() - t0;
        if (st == TDX_ERR_UNSUPPORTED) {
            rep->state[lv] = TDX_DX_SKIPPED;
            continue;
        }
        if (st) {
            rep->state[lv] = TDX_DX_FAILED;
            if (!rep->why[lv][0])
                snprintf(rep->why[lv], sizeof rep->why[lv], "%s", tdx_status_str(st));
            if (lv == 0) {
                result = st;
                break;
            }
            continue;
        }
        rep->state[lv] = TDX_DX_RAN;
        /* the deciding finding of this level: levels 1-3 add the dominant one
         * first, so the first; level 0's rules run in a fixed order, so the
         * most confident (the first among equals) */
        double best = -1;
        for (size_t i = before; i < tdx_ledger_count(ledger) && rep->decided_level < 0; i++) {
            const tdx_finding *f = tdx_ledger_at(ledger, i);
            if (tdx_dx_decides(f, min_conf) && f->confidence > best && (lv == 0 || best < 0)) {
                best = f->confidence;
                rep->deciding_finding = f->id;
            }
        }
        if (best >= 0)
            rep->decided_level = lv;
        if (rep->decided_level >= 0 && !opts->all_levels)
            break;
    }
    return result;
}

static const char *const state_names[] = {"not run", "ran", "skipped", "failed"};

tdx_status tdx_dx_summary_text(const tdx_dx_report *rep, const tdx_ledger *ledger, tdx_buf *out)
{
    tdx_status st = TDX_OK;
    for (int lv = 0; lv < 4 && !st; lv++) {
        if (rep->state[lv] == TDX_DX_NOT_RUN)
            continue;
        st = tdx_buf_printf(out, "level %d: %s", lv, state_names[rep->state[lv]]);
        if (!st && rep->state[lv] == TDX_DX_RAN)
            st = tdx_buf_printf(out, " (%.3f s, %d compiles, %d GPU runs, %ld tokens)",
                                rep->cost[lv].seconds, rep->cost[lv].compiles, rep->cost[lv].gpu_runs,
                                rep->cost[lv].tokens);
        if (!st && rep->why[lv][0])
            st = tdx_buf_printf(out, ": %s", rep->why[lv]);
        if (!st)
            st = tdx_buf_addc(out, '\n');
    }
    if (st)
        return st;
    if (rep->decided_level >= 0 && rep->deciding_finding > 0 &&
        (size_t)rep->deciding_finding <= tdx_ledger_count(ledger)) {
        const tdx_finding *f = tdx_ledger_at(ledger, (size_t)rep->deciding_finding - 1);
        for (size_t i = 0; i < tdx_ledger_count(ledger); i++)
            if (tdx_ledger_at(ledger, i)->id == rep->deciding_finding)
                f = tdx_ledger_at(ledger, i);
        return tdx_buf_printf(out, "decided at level %d by F%d [%s]: %s -> rewrite family %s\n",
                              rep->decided_level, f->id, f->rule->id, f->message, f->family);
    }
    return tdx_buf_adds(out, "no finding decided: nothing names one dominant cause with a rewrite for it\n");
}

json_t *tdx_dx_report_json(const tdx_dx_report *rep)
{
    json_t *levels = json_array();
    for (int lv = 0; lv < 4; lv++) {
        json_t *o = json_pack("{s:i, s:s, s:f, s:i, s:i, s:I}", "level", lv, "state",
                              state_names[rep->state[lv]], "seconds", rep->cost[lv].seconds,
                              "compiles", rep->cost[lv].compiles, "gpu_runs", rep->cost[lv].gpu_runs,
                              "tokens", (json_int_t)rep->cost[lv].tokens);
        if (o && rep->why[lv][0])
            json_object_set_new(o, "why", json_string(rep->why[lv]));
        json_array_append_new(levels, o);
    }
    return json_pack("{s:o, s:i, s:i}", "levels", levels, "decided_level", rep->decided_level,
                     "deciding_finding", rep->deciding_finding);
}
