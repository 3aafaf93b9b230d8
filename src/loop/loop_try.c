/* Trying one candidate of a round: vet it, check it, time it against its
 * base (again, once, when the timing is too noisy to decide), judge it and
 * journal what it came to (loop_int.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/file.h"
#include "loop/loop_int.h"
#include "rewrite/edit.h"

typedef tdx_loop__run run;

/* {"net": bool, "fs": bool}: whether a check ran isolated (docs/faults.md). */
json_t *tdx_loop__sandbox_json(const tdx_loop_check *c)
{
    return json_pack("{s:b, s:b}", "net", c->net_isolated, "fs", c->fs_isolated);
}

int tdx_loop__faster(const tdx_loop_timing *t)
{
    double spread = t->base_iqr_s > t->cand_iqr_s ? t->base_iqr_s : t->cand_iqr_s;
    return t->cand_median_s > 0 && t->cand_median_s < t->base_median_s &&
           t->base_median_s - t->cand_median_s > spread;
}

json_t *tdx_loop__timing_json(const tdx_loop_timing *t)
{
    json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:f}", "base_median_s", t->base_median_s, "base_iqr_s",
                          t->base_iqr_s, "cand_median_s", t->cand_median_s, "cand_iqr_s", t->cand_iqr_s,
                          "fraction", t->fraction);
    if (o && t->ratio_median > 0) {
        json_object_set_new(o, "ratio_median", json_real(t->ratio_median));
        json_object_set_new(o, "ratio_lo", json_real(t->ratio_lo));
        json_object_set_new(o, "ratio_hi", json_real(t->ratio_hi));
    }
    return o;
}

double tdx_loop__rel_spread(const tdx_loop_timing *t)
{
    double b = t->base_median_s > 0 ? t->base_iqr_s / t->base_median_s : 1;
    double c = t->cand_median_s > 0 ? t->cand_iqr_s / t->cand_median_s : 1;
    return b > c ? b : c;
}

/* Passed its check and timed, not faster, but not slower either: its
 * median is within the spread above the best's. */
static int even(const tdx_loop_timing *t)
{
    double spread = t->base_iqr_s > t->cand_iqr_s ? t->base_iqr_s : t->cand_iqr_s;
    return t->cand_median_s > 0 && t->base_median_s > 0 && t->cand_median_s <= t->base_median_s + spread;
}

// The parts of a trial's check (start, precompile, child, judge; < 0 unknown).
void tdx_loop__trial_parts(const tdx_loop_trial *tr, double parts[TDX_LOOP_CHECK_PARTS])
{
    parts[0] = tr->start_s;
    parts[1] = tr->precompile_s;
    parts[2] = tr->child_s;
    parts[3] = tr->judge_s;
    parts[4] = tr->alone_s;
}

// A journal entry's "check_parts_s": the parts of its check_s that are known.
void tdx_loop__set_check_parts(json_t *e, const double parts[TDX_LOOP_CHECK_PARTS])
{
    static const char *const names[TDX_LOOP_CHECK_PARTS] = {"start", "precompile", "child", "judge", "alone"};
    json_t *pj = NULL;
    for (int i = 0; e && i < TDX_LOOP_CHECK_PARTS; i++)
        if (parts[i] >= 0) {
            pj = pj ? pj : json_object();
            if (pj)
                json_object_set_new(pj, names[i], json_real(parts[i]));
        }
    if (pj)
        json_object_set_new(e, "check_parts_s", pj);
}

/* A candidate whose timing t read faster than its base by less than a
 * spread wider than TIMING_NOISY is timed again, once, and the narrower of
 * the two timings decides (on the H100 a suite run rejected
 * matmul_fp16_square's descriptors at 0.924 of retune's time and bmm's at
 * 0.945, their IQRs 14 % and 8 %: the matrix units' clocks moved under the
 * timing). *time_s grows by the second timing's seconds. Returns 1 when it
 * was timed again. */
static int retake(run *r, const char *base_path, const char *path, tdx_loop_timing *t, double *time_s)
{
    if (tdx_loop__faster(t) || t->cand_median_s <= 0 || t->cand_median_s >= t->base_median_s ||
        tdx_loop__rel_spread(t) <= TIMING_NOISY)
        return 0;
    tdx_loop_timing again;
    memset(&again, 0, sizeof again);
    again.fraction = -1;
    double t0 = tdx_loop__now_s();
    tdx_status st = r->o->exec.time(r->o->exec.ud, r->o->task_path, base_path, path, &again);
    if (*time_s >= 0)
        *time_s += tdx_loop__now_s() - t0;
    if (!st && again.base_median_s > 0 && again.cand_median_s > 0 &&
        tdx_loop__rel_spread(&again) < tdx_loop__rel_spread(t))
        *t = again;
    return 1;
}

/* Try one candidate; returns 1 when it passed and was faster, 2 when it
 * passed and was even (within the spread), else 0 (timing in *t). It is
 * timed against the best kept so far, or, with against > 0, against the
 * round's candidate of that index (a stack or a follow-up must beat the
 * round's best, measured side by side: the kept best's median moves by
 * several percent from one measurement to the next, more than the
 * difference between two of its rewrites often is). */
int tdx_loop__try_candidate(run *r, int round, size_t ci, size_t against, const tdx_loop_cand *c, const char *path,
                         tdx_loop_timing *t, tdx_status *fatal)
{
    char against_path[1200];
    const char *base_path = r->best_path;
    if (against) {
        snprintf(against_path, sizeof against_path, "%s/r%d_c%zu.py", r->res->run_dir, round, against);
        base_path = against_path;
    }
    char hash[17], why[512] = "";
    tdx_loop_hash(c->source, c->len, hash);
    const char *verdict = "rejected";
    double check_s = -1, time_s = -1; /* seconds of its check and its timing; -1 not run */
    double check_wait_s = -1, time_wait_s = -1; /* of those, waiting for the GPU lock; -1 unknown */
    double parts[TDX_LOOP_CHECK_PARTS] = {-1, -1, -1, -1, -1}; /* of check_s (tdx_loop_trial) */
    int timings = 1;                            /* 2 when the timing was taken again */
    tdx_loop_check chk = {0};
    memset(t, 0, sizeof *t);
    t->fraction = -1;
    tdx_buf diff;
    tdx_buf_init(&diff, 1 << 20);
    tdx_rw_diff(r->best, r->blen, c->source, c->len, "a/best.py", "b/candidate.py", 3, 0, &diff);
    int passed = 0;
    json_t *old = json_object_get(r->replay, hash);
    if (old) {
        /* measured before the run died: the journal has it already */
        tdx_buf_free(&diff);
        json_t *tm = json_object_get(old, "timing");
        t->base_median_s = json_number_value(json_object_get(tm, "base_median_s"));
        t->base_iqr_s = json_number_value(json_object_get(tm, "base_iqr_s"));
        t->cand_median_s = json_number_value(json_object_get(tm, "cand_median_s"));
        t->cand_iqr_s = json_number_value(json_object_get(tm, "cand_iqr_s"));
        t->ratio_median = json_number_value(json_object_get(tm, "ratio_median"));
        t->ratio_lo = json_number_value(json_object_get(tm, "ratio_lo"));
        t->ratio_hi = json_number_value(json_object_get(tm, "ratio_hi"));
        json_t *fr = json_object_get(tm, "fraction");
        t->fraction = json_is_number(fr) ? json_number_value(fr) : -1;
        t->tolerance = json_number_value(json_object_get(old, "tolerance"));
        const char *v = json_string_value(json_object_get(old, "verdict"));
        passed = v && strcmp(v, "faster") == 0 ? 1 : v && strcmp(v, "slower") == 0 && even(t) ? 2 : 0;
        json_object_del(r->replay, hash);
        return passed;
    }
    if (json_object_get(r->tried, hash)) {
        snprintf(why, sizeof why, "already tried");
        verdict = "duplicate";
    } else {
        tdx_loop_vet(r->orig, r->olen, c->source, c->len, why, sizeof why);
        if (!why[0] && tdx_file_write(path, c->source, c->len) != TDX_OK)
            snprintf(why, sizeof why, "cannot write %.400s", path);
        tdx_status tst = TDX_OK;
        int timed = 0;
        if (!why[0] && r->o->exec.trial) {
            /* both steps in one go, where the executor can */
            tdx_loop__progress(r, round, ci, 0, "check+time");
            tdx_loop_trial tr;
            memset(&tr, 0, sizeof tr);
            tr.check_wait_s = tr.time_wait_s = -1;
            tr.start_s = tr.precompile_s = tr.child_s = tr.judge_s = tr.alone_s = -1;
            tdx_status st = r->o->exec.trial(r->o->exec.ud, r->o->task_path, base_path, path, &tr);
            if (st)
                tr.check_st = st;
            chk = tr.check;
            check_s = tr.check_s;
            check_wait_s = tr.check_wait_s;
            tdx_loop__trial_parts(&tr, parts);
            if (tr.check_st || !chk.ok)
                snprintf(why, sizeof why, "check failed: %.480s",
                         chk.reason[0] ? chk.reason : tdx_status_str(tr.check_st));
            else if (tr.timed) {
                *t = tr.timing;
                tst = tr.time_st;
                time_s = tr.time_s;
                time_wait_s = tr.time_wait_s;
                timed = 1;
            }
        } else if (!why[0]) {
            tdx_loop__progress(r, round, ci, 0, "check");
            double c0 = tdx_loop__now_s();
            tdx_status st = r->o->exec.check(r->o->exec.ud, r->o->task_path, path, &chk);
            check_s = tdx_loop__now_s() - c0;
            if (st || !chk.ok)
                snprintf(why, sizeof why, "check failed: %.480s", chk.reason[0] ? chk.reason : tdx_status_str(st));
        }
        if (!why[0] && !timed) {
            tdx_loop__progress(r, round, ci, 0, "time");
            double t0 = tdx_loop__now_s();
            tst = r->o->exec.time(r->o->exec.ud, r->o->task_path, base_path, path, t);
            time_s = tdx_loop__now_s() - t0;
            timed = 1;
        }
        if (!why[0] && timed && !tst && retake(r, base_path, path, t, &time_s))
            timings = 2;
        t->tolerance = chk.ok ? chk.tolerance : 0;
        if (!why[0] && timed) {
            tdx_status st = tst;
            if (st)
                snprintf(why, sizeof why, "timing failed: %.480s", t->reason[0] ? t->reason : tdx_status_str(st));
            else if (!tdx_loop__faster(t)) {
                snprintf(why, sizeof why, "not faster: %.4g s vs %.4g s (spread %.2g s)",
                         t->cand_median_s, t->base_median_s,
                         t->base_iqr_s > t->cand_iqr_s ? t->base_iqr_s : t->cand_iqr_s);
                verdict = "slower";
            } else {
                verdict = "faster";
                passed = 1;
            }
            if (!st && !passed && even(t))
                passed = 2;
        }
    }
    json_t *cites = json_array();
    for (int i = 0; i < c->ncites; i++)
        json_array_append_new(cites, json_integer(c->cites[i]));
    json_t *e = json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:I}", "type",
                          "candidate", "round", round, "index", (int)ci, "family", c->family,
                          "origin", c->origin, "summary", c->summary, "hash", hash, "cites", cites,
                          "file", path, "verdict", verdict, "diff", tdx_buf_str(&diff), "tokens",
                          (json_int_t)c->tokens);
    if (e && why[0])
        json_object_set_new(e, "reason", json_string(why));
    if (e && against)
        json_object_set_new(e, "against", json_integer((json_int_t)against));
    if (e && check_s >= 0)
        json_object_set_new(e, "check_s", json_real(check_s));
    if (e && t->tolerance > 0)
        json_object_set_new(e, "tolerance", json_real(t->tolerance));
    if (e && time_s >= 0)
        json_object_set_new(e, "time_s", json_real(time_s));
    if (e && timings > 1)
        json_object_set_new(e, "timings", json_integer(timings));
    if (e && (check_wait_s >= 0 || time_wait_s >= 0)) {
        json_t *w = json_object();
        if (w && check_wait_s >= 0)
            json_object_set_new(w, "check", json_real(check_wait_s));
        if (w && time_wait_s >= 0)
            json_object_set_new(w, "time", json_real(time_wait_s));
        json_object_set_new(e, "lock_wait_s", w);
    }
    tdx_loop__set_check_parts(e, parts);
    if (e && chk.sandbox_known)
        json_object_set_new(e, "sandbox", tdx_loop__sandbox_json(&chk));
    if (e && t->base_median_s > 0)
        json_object_set_new(e, "timing", tdx_loop__timing_json(t));
    tdx_buf_free(&diff);
    *fatal = tdx_loop__jlog(r, e);
    json_object_set_new(r->tried, hash, json_true());
    r->res->tried++;
    return passed;
}
