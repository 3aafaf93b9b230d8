/* The steps a round takes after its candidates -- a stack of its two
 * winners, a follow-up or a search on its best -- and the end's timing of
 * the result side by side with the task (loop_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop/loop_int.h"
#include "loop/propose.h"

typedef tdx_loop__run run;

/* The timing of a candidate measured against the round's best (best, itself
 * measured against the kept best) rescaled to read against the kept best:
 * its median as measured, the base's such that the ratio is the product. */
static tdx_loop_timing chained(const tdx_loop_timing *best, const tdx_loop_timing *t)
{
    tdx_loop_timing c = *t;
    double ratio = best->base_median_s > 0 ? best->cand_median_s / best->base_median_s : 1;
    if (ratio > 0) {
        c.base_median_s = t->base_median_s / ratio;
        c.base_iqr_s = t->base_iqr_s / ratio;
    }
    return c;
}

/* Two candidates of different families both won: stack the runner-up's
 * family on the winner and try that too (one more candidate), appended to
 * cands, timed side by side with the winner; it becomes the round's best
 * when it beats it. With no
 * second winner, the fastest candidate of another family that came out
 * even is the runner-up: a rewrite that does nothing measurable on the
 * untuned kernel can on the tuned one (an fp32 dot's operand layout
 * matters once the tile is large enough for wgmma). ratio_of[i] is
 * candidate i's time over the best's, verdict_of[i] try_candidate's verdict. */
tdx_status tdx_loop__stack_winners(run *r, int round, tdx_loop_cands *cands, size_t n, const double *ratio_of,
                                const int *verdict_of, int *best_i, tdx_loop_timing *best_t, size_t *last_ci)
{
    const tdx_loop_cand *best = &cands->items[*best_i];
    int second = -1;
    for (int kind = 1; kind <= 2 && second < 0; kind++)
        for (size_t i = 0; i < n; i++)
            if ((int)i != *best_i && verdict_of[i] == kind && strcmp(cands->items[i].family, best->family) != 0 &&
                (second < 0 || ratio_of[i] < ratio_of[second]))
                second = (int)i;
    if (second < 0)
        return TDX_OK;
    tdx_loop_cand stacked;
    if (tdx_loop_builtin_stack(r->o->task_path, best, &cands->items[second], &stacked, r->diags) != TDX_OK)
        return TDX_OK;
    size_t ci = n + 1;
    *last_ci = ci;
    char path[1200];
    snprintf(path, sizeof path, "%s/r%d_c%zu.py", r->res->run_dir, round, ci);
    tdx_loop__progress(r, round, ci, ci, "stacked");
    tdx_loop_timing t;
    tdx_status st = TDX_OK;
    int won = tdx_loop__try_candidate(r, round, ci, (size_t)*best_i + 1, &stacked, path, &t, &st);
    if (st) {
        free(stacked.source);
        return st;
    }
    if (won == 1) {
        /* it becomes candidate n + 1 of the round, as the journal numbers it */
        for (size_t i = n; i < cands->len; i++)
            free(cands->items[i].source);
        cands->len = n;
        st = tdx_loop_cands_take(cands, &stacked);
        if (!st) {
            *best_i = (int)n;
            *best_t = chained(best_t, &t);
        }
        return st;
    }
    free(stacked.source);
    return TDX_OK;
}

/* Non-zero when the round's best (timing t) still leaves the run short of
 * where rounds() stops: below the roofline target, or slower than the time
 * to reach. */
static int still_short(const run *r, const tdx_loop_timing *t)
{
    const tdx_loop_opts *o = r->o;
    double target = o->target_fraction > 0 ? o->target_fraction : TARGET_FRACTION;
    double ratio = t->base_median_s > 0 ? t->cand_median_s / t->base_median_s : 1;
    double final_s = r->res->final_s > 0 ? r->res->final_s * ratio : t->cand_median_s;
    return t->fraction < target || (o->reach_s > 0 && final_s > o->reach_s * tdx_loop__reach_margin(o));
}

/* One follow-up (tdx_loop__follow_up): a finding's family on the round's
 * best, or (none, or search_only) a search on it. 1 when it won and became
 * the round's best, 0 when it lost, -1 when there was none; *search set
 * when it was the search. */
static int follow_up_once(run *r, int round, tdx_loop_cands *cands, const tdx_ledger *seen, int search_only,
                          int *best_i, tdx_loop_timing *best_t, size_t *last_ci, size_t *keep_ci, int *search,
                          tdx_status *st)
{
    tdx_loop_cand next;
    char rule[16] = "";
    const tdx_loop_cand *best = &cands->items[*best_i];
    tdx_status fs = search_only ? TDX_ERR_NOTFOUND
                                : tdx_loop_builtin_follow_up(r->o->task_path, best, seen, cands->items, cands->len,
                                                             &next, rule, sizeof rule, r->diags);
    *search = 0;
    if (fs == TDX_ERR_NOTFOUND && still_short(r, best_t)) {
        fs = tdx_loop_builtin_search_on(r->o->task_path, best, cands->items, cands->len, &next, r->diags);
        snprintf(rule, sizeof rule, "search");
        *search = 1;
    }
    if (fs == TDX_ERR_NOMEM)
        *st = fs;
    if (fs != TDX_OK)
        return -1;
    size_t ci = *last_ci + 1;
    *last_ci = ci;
    char path[1200];
    snprintf(path, sizeof path, "%s/r%d_c%zu.py", r->res->run_dir, round, ci);
    tdx_loop__progress(r, round, ci, ci, "follow-up");
    char summary[sizeof next.summary];
    snprintf(summary, sizeof summary, "%.230s (%.15s)", next.summary, rule);
    memcpy(next.summary, summary, sizeof summary);
    tdx_loop_timing t;
    int won = tdx_loop__try_candidate(r, round, ci, *keep_ci ? *keep_ci : (size_t)*best_i + 1, &next, path, &t, st);
    if (!*st && won == 1) {
        *st = tdx_loop_cands_take(cands, &next);
        if (!*st) {
            *best_i = (int)cands->len - 1;
            *best_t = chained(best_t, &t);
            *keep_ci = ci;
            return 1;
        }
        return 0;
    }
    free(next.source);
    return *st ? -1 : 0;
}

/* A rewrite the round's best opened up: a level-0 finding on the best's
 * source that the round's diagnosis did not have (block-outputs turns a
 * convolution's scalar weight into a column, and the loop over input
 * channels becomes an outer-product accumulation, TDX024), or one it had
 * but left untried (a round of two candidates for three families), gets
 * its family's first candidate on the best, tried as the round's next
 * candidate (journal index *last_ci + 1). It becomes the round's best when
 * it beats it; *keep_ci is then its index. When no finding opens anything
 * up and the best is still short of the target, a search on the best takes
 * the place (the journal's summary ends "(search)"): retune's next step
 * unless the round timed that source, else autotune unless the round tried
 * it. While the best is still short another follow-up comes, FOLLOW_UPS a
 * round at most: after one that won, the next as above; after a finding's
 * that lost, the search (the finding would only be tried again); after a
 * search that lost, none. So a round of one or two candidates reaches the
 * rewrites the next rounds would start from. */
tdx_status tdx_loop__follow_up(run *r, int round, tdx_loop_cands *cands, const tdx_ledger *seen, int *best_i,
                            tdx_loop_timing *best_t, size_t *last_ci, size_t *keep_ci)
{
    tdx_status st = TDX_OK;
    int search_only = 0;
    for (int n = 0; n < FOLLOW_UPS && !st; n++) {
        int search = 0;
        int won = follow_up_once(r, round, cands, seen, search_only, best_i, best_t, last_ci, keep_ci, &search, &st);
        if (won < 0 || (won == 0 && search) || !still_short(r, best_t))
            break;
        search_only = won == 0;
    }
    return st;
}

/* The kept source timed side by side with the task as given at the end.
 * Each keep was timed against the best before it and the running time is
 * the product of those ratios, whose noise multiplies (one kernel read
 * 17.1, 18.7 and 19.5 ms in three timings of one run); the task's own
 * first timing moves too (sum_all read 0.606 ms at the start of a run and
 * 0.549 ms beside its result at the end; attention_causal 1.203 and
 * 1.267). So the task's time is the geometric mean of its two timings, the
 * result's that times the ratio read here (the speedup), and the roofline
 * fractions are at those times. A timing spread over more than 3 % is
 * taken again and the narrower of the two decides (a launch whose host
 * path is as long as its kernel reads up to 34 % IQR while other
 * processes load the CPU). Faster beyond the spread: confirmed. Slower
 * beyond it: the task is the result (undone). Within it: inconclusive, the
 * kept source stays, at the ratio it read here. A timing that fails leaves
 * the chained time; the journal says which. */
/* One timing of the result (cand; NULL: the task alone) beside the task,
 * with torch's baseline among them when the run asks for it and the
 * executor offers it (a torch timing that fails is taken again without
 * torch: torch's columns are a comparison, the result's time is not); an
 * error when it failed or gave no time. */
static tdx_status time_beside_task(run *r, const char *cand, tdx_loop_timing *t)
{
    const tdx_loop_exec *x = &r->o->exec;
    tdx_status st = TDX_ERR_CHILD;
    for (int torch = r->o->beside_torch && x->time_torch ? 1 : 0; torch >= 0; torch--) {
        memset(t, 0, sizeof *t);
        t->fraction = -1;
        st = (torch ? x->time_torch : x->time)(x->ud, r->o->task_path, r->o->task_path, cand, t);
        if (!st && (t->base_median_s <= 0 || (cand && t->cand_median_s <= 0)))
            st = TDX_ERR_CHILD;
        if (!st)
            break;
    }
    return st;
}

/* torch's columns of timing t into the journal entry e, at the time basis
 * task_s of the task's own column there: each times task_s over the task's
 * median, so that they compare with the entry's final time as they did
 * side by side. Nothing when torch was not timed. */
static void torch_beside_json(json_t *e, const tdx_loop_timing *t, double task_s)
{
    if (t->torch_eager_s > 0 && t->base_median_s > 0)
        json_object_set_new(e, "torch_eager_s", json_real(task_s * t->torch_eager_s / t->base_median_s));
    if (t->torch_compile_s > 0 && t->base_median_s > 0)
        json_object_set_new(e, "torch_compile_s", json_real(task_s * t->torch_compile_s / t->base_median_s));
    if (t->torch_compile_build_s > 0) /* of the entry's time_s, what torch.compile's compile took */
        json_object_set_new(e, "torch_compile_build_s", json_real(t->torch_compile_build_s));
}

/* Nothing kept (or the kept undone): with beside_torch, the task timed once
 * more with torch's baseline among its runs, for the comparison the
 * confirm makes otherwise (journal `torch_beside`: torch's columns at the
 * task's final time). A timing that fails is only a note there. */
static tdx_status task_beside_torch(run *r)
{
    if (!r->o->beside_torch || !r->o->exec.time_torch)
        return TDX_OK;
    tdx_loop__progress(r, r->res->rounds, 0, 0, "torch beside the task");
    double t0 = tdx_loop__now_s();
    tdx_loop_timing t;
    tdx_status st = time_beside_task(r, NULL, &t);
    json_t *e = json_pack("{s:s, s:f}", "type", "torch_beside", "time_s", tdx_loop__now_s() - t0);
    if (!e)
        return TDX_ERR_NOMEM;
    if (st || !(t.torch_eager_s > 0 || t.torch_compile_s > 0)) {
        const char *why = !st ? "no torch column was timed" : t.reason[0] ? t.reason : tdx_status_str(st);
        json_object_set_new(e, "reason", json_string(why));
    } else {
        json_object_set_new(e, "timing", tdx_loop__timing_json(&t));
        json_object_set_new(e, "task_median_s", json_real(t.base_median_s));
        json_object_set_new(e, "final_s", json_real(r->res->final_s));
        torch_beside_json(e, &t, r->res->final_s);
    }
    r->confirmed = 1;
    return tdx_loop__jlog(r, e);
}

tdx_status tdx_loop__confirm(run *r)
{
    tdx_loop_result *res = r->res;
    if (r->confirmed || r->o->no_confirm)
        return TDX_OK;
    /* nothing kept, or undone already (a resumed run that died before its
     * stop): no result to time, only the task beside torch */
    if (!res->kept || res->reverted)
        return task_beside_torch(r);
    tdx_loop__progress(r, res->rounds, 0, 0, "confirm");
    double t0 = tdx_loop__now_s();
    tdx_loop_timing t, again;
    tdx_status st = time_beside_task(r, r->best_path, &t);
    int timings = 1;
    double wait_s = t.wait_s, timed_s = t.timed_s; /* over every timing of the confirm */
    if (st || tdx_loop__rel_spread(&t) > TIMING_NOISY) {
        tdx_status st2 = time_beside_task(r, r->best_path, &again);
        timings++;
        wait_s += again.wait_s;
        timed_s += again.timed_s;
        if (!st2 && (st || tdx_loop__rel_spread(&again) < tdx_loop__rel_spread(&t))) {
            t = again;
            st = TDX_OK;
        }
    }
    double time_s = tdx_loop__now_s() - t0;
    double chained = res->final_s;
    json_t *e = json_pack("{s:s, s:f, s:f, s:i}", "type", "confirm", "chained_final_s", chained, "time_s", time_s,
                          "timings", timings);
    if (!e)
        return TDX_ERR_NOMEM;
    /* of time_s: the waits for the GPU lock, and the exclusive holds */
    if (wait_s > 0)
        json_object_set_new(e, "lock_wait_s", json_real(wait_s));
    if (timed_s > 0)
        json_object_set_new(e, "timed_runs_s", json_real(timed_s));
    r->confirmed = 1;
    if (st) {
        json_object_set_new(e, "reason", json_string(t.reason[0] ? t.reason : tdx_status_str(st)));
        json_object_set_new(e, "final_s", json_real(chained));
        return tdx_loop__jlog(r, e);
    }
    double spread = t.base_iqr_s > t.cand_iqr_s ? t.base_iqr_s : t.cand_iqr_s;
    int confirmed = tdx_loop__faster(&t);
    int reverted = !confirmed && t.cand_median_s > t.base_median_s + spread;
    /* the task's time: the geometric mean of its timings at the start and
     * here; the result's: that times the ratio read here. A fraction is the
     * floor over a time. */
    double start_s = res->initial_s;
    double task_s = start_s > 0 ? sqrt(start_s * t.base_median_s) : t.base_median_s;
    double floor_s = t.fraction >= 0 ? t.fraction * t.cand_median_s : -1;
    json_object_set_new(e, "start_initial_s", json_real(start_s));
    res->initial_s = task_s;
    if (floor_s > 0)
        r->initial_fraction = floor_s / task_s;
    res->final_s = reverted ? task_s : task_s * (t.cand_median_s / t.base_median_s);
    res->final_fraction = floor_s > 0 ? floor_s / res->final_s : reverted ? r->initial_fraction : res->final_fraction;
    res->reverted = reverted;
    json_object_set_new(e, "timing", tdx_loop__timing_json(&t));
    json_object_set_new(e, "outcome", json_string(confirmed  ? "faster"
                                                  : reverted ? "slower"
                                                             : "inconclusive"));
    json_object_set_new(e, "initial_s", json_real(res->initial_s));
    json_object_set_new(e, "initial_fraction", json_real(r->initial_fraction));
    json_object_set_new(e, "final_s", json_real(res->final_s));
    json_object_set_new(e, "fraction", json_real(res->final_fraction));
    json_object_set_new(e, "reverted", json_boolean(reverted));
    torch_beside_json(e, &t, task_s);
    tdx_status js = tdx_loop__jlog(r, e);
    if (js)
        return js;
    if (reverted) {
        tdx_diags_add(r->diags, TDX_SEV_WARNING, r->o->task_path, 0, 0,
                      "side by side with the task, the kept source is slower (%.4g s vs %.4g s, spread %.2g s): "
                      "the result is the task as given",
                      t.cand_median_s, t.base_median_s, spread);
        return tdx_loop__write_best(r, r->orig, r->olen);
    }
    return TDX_OK;
}
