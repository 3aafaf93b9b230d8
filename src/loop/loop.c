/* The optimize loop: rounds, keep/reject decisions, journal and resume. */
#include "loop/loop.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "journal/journal.h"
#include "loop/loop_int.h"
#include "loop/propose.h"

#define TDX_LOOP_MAX_SRC ((size_t)4 << 20)

tdx_status tdx_loop_cands_push(tdx_loop_cands *c, char *source, size_t len, const char *family,
                               const char *origin, const char *summary)
{
    if (c->len == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        tdx_loop_cand *p = realloc(c->items, cap * sizeof *p);
        if (!p) {
            free(source);
            return TDX_ERR_NOMEM;
        }
        c->items = p;
        c->cap = cap;
    }
    tdx_loop_cand *k = &c->items[c->len++];
    memset(k, 0, sizeof *k);
    k->source = source;
    k->len = len;
    snprintf(k->family, sizeof k->family, "%s", family ? family : "");
    snprintf(k->origin, sizeof k->origin, "%s", origin ? origin : "builtin");
    snprintf(k->summary, sizeof k->summary, "%s", summary ? summary : "");
    return TDX_OK;
}

tdx_status tdx_loop_cands_take(tdx_loop_cands *out, tdx_loop_cand *c)
{
    tdx_status st = tdx_loop_cands_push(out, c->source, c->len, c->family, c->origin, c->summary);
    c->source = NULL; /* moved */
    if (!st) {
        tdx_loop_cand *d = &out->items[out->len - 1];
        memcpy(d->cites, c->cites, sizeof d->cites);
        d->ncites = c->ncites;
        d->tokens = c->tokens;
    }
    return st;
}

void tdx_loop_cands_free(tdx_loop_cands *c)
{
    for (size_t i = 0; i < c->len; i++)
        free(c->items[i].source);
    free(c->items);
    memset(c, 0, sizeof *c);
}

double tdx_loop__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* TASK.py -> TASK<suffix> next to it. */
static void sibling(const char *task, const char *suffix, char *out, size_t n)
{
    size_t len = strlen(task);
    if (len > 3 && strcmp(task + len - 3, ".py") == 0)
        len -= 3;
    snprintf(out, n, "%.*s%s", (int)len, task, suffix);
}

typedef tdx_loop__run run;

/* Tell level 1 the timing of the best source (r->best) just made. */
static void remember_timing(run *r, double median_s, double iqr_s, const tdx_loop_timing *t)
{
    r->l1.known_src = r->best;
    r->l1.known_len = r->blen;
    r->l1.known_median_s = median_s;
    r->l1.known_iqr_s = iqr_s;
    r->l1.known_bytes = t->bytes;
    r->l1.known_out_bytes = t->out_bytes;
    r->l1.known_flops = t->flops;
    snprintf(r->l1.known_dtype, sizeof r->l1.known_dtype, "%s", t->dtype);
}

tdx_status tdx_loop__jlog(run *r, json_t *e)
{
    if (!e)
        return TDX_ERR_NOMEM;
    /* when it happened, in the run's seconds: where a run's time goes */
    if (!json_object_get(e, "at_s"))
        json_object_set_new(e, "at_s", json_real(r->elapsed_before + tdx_loop__now_s() - r->t0));
    tdx_status st = tdx_jnl_append(&r->jnl, e);
    json_decref(e);
    if (st)
        tdx_diags_add(r->diags, TDX_SEV_ERROR, r->jnl.path, 0, 0, "cannot append to the journal");
    return st;
}

void tdx_loop__progress(run *r, int round, size_t ci, size_t nc, const char *what)
{
    if (!r->o->progress)
        return;
    tdx_loop_progress p = {round, r->o->max_rounds > 0 ? r->o->max_rounds : 15, ci, nc,
                           r->res->final_s, r->res->initial_s,
                           r->elapsed_before + tdx_loop__now_s() - r->t0, what};
    r->o->progress(&p, r->o->progress_ud);
}

tdx_status tdx_loop__write_best(run *r, const char *src, size_t len)
{
    tdx_status st = tdx_file_write(r->best_path, src, len);
    if (!st)
        st = tdx_file_write(r->res->out_path, src, len);
    if (st)
        tdx_diags_add(r->diags, TDX_SEV_ERROR, r->res->out_path, 0, 0, "cannot write the result");
    return st;
}

static json_t *findings_json(const tdx_ledger *l)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < tdx_ledger_count(l); i++) {
        const tdx_finding *f = tdx_ledger_at(l, i);
        json_t *o = json_pack("{s:i, s:s, s:i, s:s, s:i, s:s, s:f}", "id", f->id, "rule",
                              f->rule->id, "level", f->level, "file", f->file ? f->file : "",
                              "line", f->line, "message", f->message, "confidence", f->confidence);
        if (!o)
            continue;
        if (f->family && f->family[0])
            json_object_set_new(o, "family", json_string(f->family));
        if (f->hypothesis)
            json_object_set_new(o, "hypothesis", json_string(f->hypothesis));
        if (f->kernel)
            json_object_set_new(o, "kernel", json_string(f->kernel));
        if (f->nfacts) {
            json_t *facts = json_object();
            for (size_t k = 0; k < f->nfacts; k++)
                json_object_set_new(facts, f->facts[k].key, json_string(f->facts[k].value));
            json_object_set_new(o, "facts", facts);
        }
        if (f->evidence)
            json_object_set_new(o, "evidence", json_string(f->evidence));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* Whether the journal at jpath records the task's baseline (its own check
 * passed and it was timed); a journal that cannot be read counts as one,
 * so that resuming says what is wrong with it. */
static int baseline_recorded(const char *jpath, tdx_diags *diags)
{
    json_t *entries = NULL;
    if (tdx_jnl_read(jpath, &entries, diags) != TDX_OK)
        return 1;
    int yes = tdx_jnl_last(entries, "baseline") != NULL;
    json_decref(entries);
    return yes;
}

/* Restore state from an existing journal. Returns 1 when the run had already stopped. */
static tdx_status resume_state(run *r, json_t *entries, int *next_round, int *stopped)
{
    *next_round = 1;
    *stopped = 0;
    json_t *start = tdx_jnl_last(entries, "start");
    if (!start)
        return TDX_ERR_NOTFOUND;
    json_t *base = tdx_jnl_last(entries, "baseline");
    if (base) {
        r->res->initial_s = r->res->final_s = json_real_value(json_object_get(base, "median_s"));
        r->last_fraction = r->initial_fraction = json_number_value(json_object_get(base, "fraction"));
    }
    json_int_t keep_round = 0;
    size_t n = json_array_size(entries);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(entries, i);
        const char *type = json_string_value(json_object_get(e, "type"));
        if (!type)
            continue;
        if (strcmp(type, "candidate") == 0) {
            const char *h = json_string_value(json_object_get(e, "hash"));
            if (h)
                json_object_set_new(r->tried, h, json_true());
            r->res->tried++;
        } else if (strcmp(type, "keep") == 0) {
            r->res->kept++;
            r->res->final_s = json_real_value(json_object_get(e, "median_s"));
            r->last_fraction = json_number_value(json_object_get(e, "fraction"));
            keep_round = json_integer_value(json_object_get(e, "round"));
        } else if (strcmp(type, "round_end") == 0) {
            /* a damaged journal's round number must not overflow the next one */
            json_int_t done = json_integer_value(json_object_get(e, "round"));
            *next_round = done < 1 ? 1 : done >= INT_MAX ? INT_MAX : (int)done + 1;
            r->res->rounds = *next_round - 1;
        } else if (strcmp(type, "torch_beside") == 0) {
            r->confirmed = 1;
        } else if (strcmp(type, "confirm") == 0) {
            r->confirmed = 1;
            json_t *fs = json_object_get(e, "final_s"), *is = json_object_get(e, "initial_s");
            if (json_is_number(fs) && json_number_value(fs) > 0)
                r->res->final_s = json_number_value(fs);
            if (json_is_number(is) && json_number_value(is) > 0)
                r->res->initial_s = json_number_value(is);
            json_t *ifr = json_object_get(e, "initial_fraction");
            if (json_is_number(ifr))
                r->initial_fraction = json_number_value(ifr);
            json_t *fr = json_object_get(e, "fraction");
            if (json_is_number(fr))
                r->last_fraction = json_number_value(fr);
            r->res->reverted = json_is_true(json_object_get(e, "reverted"));
        } else if (strcmp(type, "stop") == 0) {
            *stopped = 1;
            const char *why = json_string_value(json_object_get(e, "reason"));
            snprintf(r->res->stop_reason, sizeof r->res->stop_reason, "%s", why ? why : "");
        }
        json_t *el = json_object_get(e, "elapsed_s");
        if (json_is_number(el))
            r->elapsed_before = json_number_value(el);
    }
    /* a keep ends its round's work (the process died before its round_end):
     * the next round starts from the kept source */
    if (keep_round >= *next_round && keep_round < INT_MAX) {
        *next_round = (int)keep_round + 1;
        r->res->rounds = (int)keep_round;
    }
    /* the candidates of the round it died in count as they were measured */
    for (size_t i = 0; i < n && !*stopped; i++) {
        json_t *e = json_array_get(entries, i);
        const char *type = json_string_value(json_object_get(e, "type"));
        const char *h = json_string_value(json_object_get(e, "hash"));
        if (type && h && strcmp(type, "candidate") == 0 &&
            json_integer_value(json_object_get(e, "round")) == *next_round)
            json_object_set(r->replay, h, e);
    }
    r->res->final_fraction = r->last_fraction;
    /* the best source so far is best.py when something was kept, else the original */
    if (r->res->kept) {
        char *data;
        size_t len;
        if (tdx_file_read(r->best_path, TDX_LOOP_MAX_SRC, &data, &len) != TDX_OK)
            return TDX_ERR_IO;
        free(r->best);
        r->best = data;
        r->blen = len;
    }
    return TDX_OK;
}

static tdx_status stop(run *r, int round, const char *reason)
{
    snprintf(r->res->stop_reason, sizeof r->res->stop_reason, "%s", reason);
    tdx_status cs = tdx_loop__confirm(r);
    if (cs)
        return cs;
    if (!r->res->kept) /* nothing better: the result is the task as it was */
        tdx_loop__write_best(r, r->best, r->blen);
    return tdx_loop__jlog(r, json_pack("{s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:f}", "type", "stop", "reason",
                             reason, "rounds", round, "kept", r->res->kept, "tried", r->res->tried,
                             "initial_median_s", r->res->initial_s, "final_median_s",
                             r->res->final_s, "elapsed_s", r->elapsed_before + tdx_loop__now_s() - r->t0));
}

/* Ask every proposer, then take their candidates in turns (the first of
 * each, then the second of each, ...) so that one prolific proposer does
 * not crowd the others out of the round's max candidates. */
static tdx_status propose_all(run *r, const tdx_loop_ctx *ctx, tdx_loop_cands *out, size_t max)
{
    const tdx_loop_opts *o = r->o;
    tdx_loop_cands per[4] = {{0}};
    size_t np = o->nproposers < 4 ? o->nproposers : 4;
    for (size_t p = 0; p < np; p++) {
        tdx_status ps = o->proposers[p].propose(o->proposers[p].ud, ctx, &per[p], r->diags);
        if (ps)
            tdx_diags_add(r->diags, TDX_SEV_WARNING, o->task_path, 0, 0, "proposer %s failed: %s",
                          o->proposers[p].name, tdx_status_str(ps));
    }
    tdx_status st = TDX_OK;
    for (size_t k = 0; !st && out->len < max; k++) {
        int any = 0;
        for (size_t p = 0; p < np && !st && out->len < max; p++) {
            if (k >= per[p].len)
                continue;
            any = 1;
            tdx_loop_cand *c = &per[p].items[k];
            char hash[17];
            tdx_loop_hash(c->source, c->len, hash);
            if (json_object_get(r->tried, hash) && !json_object_get(r->replay, hash))
                continue; /* tried in an earlier round: leave the slot to something new */
            st = tdx_loop_cands_take(out, c);
        }
        if (!any)
            break;
    }
    for (size_t p = 0; p < np; p++)
        tdx_loop_cands_free(&per[p]);
    return st;
}

static tdx_status rounds(run *r, int first_round)
{
    const tdx_loop_opts *o = r->o;
    int max_rounds = o->max_rounds > 0 ? o->max_rounds : 15;
    size_t max_cands = o->max_cands > 0 ? (size_t)o->max_cands : 8;
    double target = o->target_fraction > 0 ? o->target_fraction : TARGET_FRACTION;
    tdx_status st = TDX_OK;
    for (int round = first_round;; round++) {
        if (round > max_rounds)
            return stop(r, round - 1, "round limit reached");
        if (o->time_budget_s > 0 && r->elapsed_before + tdx_loop__now_s() - r->t0 > o->time_budget_s)
            return stop(r, round - 1, "time budget spent");
        if (r->last_fraction >= target && !(o->reach_s > 0 && r->res->final_s > o->reach_s * tdx_loop__reach_margin(o)))
            return stop(r, round - 1, "near the roofline");
        tdx_loop__progress(r, round, 0, 0, "diagnose");
        tdx_ledger ledger;
        tdx_ledger_init(&ledger);
        tdx_dx_report dx;
        /* levels 1-3 measure and compile a file: the best so far, not the original */
        st = tdx_dx_run(&r->dx, r->best_path, r->best, r->blen, &ledger, &dx, r->diags);
        if (st) {
            tdx_ledger_free(&ledger);
            return st;
        }
        st = tdx_loop__jlog(r, json_pack("{s:s, s:i, s:o, s:o}", "type", "round", "round", round, "findings",
                               findings_json(&ledger), "diagnosis", tdx_dx_report_json(&dx)));
        tdx_loop_cands cands = {0};
        tdx_loop_ctx ctx = {o->task_path, r->best, r->blen, &ledger, &dx, round};
        st = propose_all(r, &ctx, &cands, max_cands);
        size_t ncands = cands.len < max_cands ? cands.len : max_cands;
        int best_i = -1;
        tdx_loop_timing best_t = {0};
        double ratio_of[64];
        int won_of[64];
        for (size_t i = 0; i < ncands && !st; i++) {
            char path[1200];
            snprintf(path, sizeof path, "%s/r%d_c%zu.py", r->res->run_dir, round, i + 1);
            tdx_loop__progress(r, round, i + 1, ncands, "candidate");
            tdx_loop_timing t;
            int won = tdx_loop__try_candidate(r, round, i + 1, 0, &cands.items[i], path, &t, &st);
            if (i < 64) {
                won_of[i] = won;
                ratio_of[i] = won ? t.cand_median_s / t.base_median_s : -1;
            }
            won = won == 1;
            if (won && (best_i < 0 || t.cand_median_s / t.base_median_s <
                                          best_t.cand_median_s / best_t.base_median_s)) {
                best_i = (int)i;
                best_t = t;
            }
        }
        size_t last_ci = ncands, keep_ci = 0;
        if (!st && best_i >= 0 && !o->no_stack)
            st = tdx_loop__stack_winners(r, round, &cands, ncands < 64 ? ncands : 64, ratio_of, won_of, &best_i, &best_t,
                               &last_ci);
        if (!st && best_i >= 0 && !o->no_stack)
            st = tdx_loop__follow_up(r, round, &cands, &ledger, &best_i, &best_t, &last_ci, &keep_ci);
        if (!st && best_i >= 0) {
            /* keep the fastest; its speed relative to the old best scales the running time */
            tdx_loop_cand *c = &cands.items[best_i];
            double ratio = best_t.cand_median_s / best_t.base_median_s;
            r->res->final_s = r->res->final_s > 0 ? r->res->final_s * ratio : best_t.cand_median_s;
            r->res->kept++;
            free(r->best);
            r->best = c->source;
            r->blen = c->len;
            c->source = NULL;
            r->last_fraction = best_t.fraction;
            r->res->final_fraction = best_t.fraction;
            st = tdx_loop__write_best(r, r->best, r->blen);
            remember_timing(r, best_t.cand_median_s, best_t.cand_iqr_s, &best_t);
            if (!st) {
                json_t *ke = json_pack("{s:s, s:i, s:i, s:s, s:f, s:f, s:f}", "type", "keep", "round", round,
                                       "index", keep_ci ? (int)keep_ci : best_i + 1, "family", c->family,
                                       "median_s", r->res->final_s, "speedup", r->res->initial_s / r->res->final_s,
                                       "fraction", best_t.fraction);
                if (ke && best_t.tolerance > 0) /* the tolerance the kept file was judged by */
                    json_object_set_new(ke, "tolerance", json_real(best_t.tolerance));
                st = tdx_loop__jlog(r, ke);
            }
        }
        int decided = dx.decided_level;
        tdx_loop_cands_free(&cands);
        tdx_ledger_free(&ledger);
        if (st)
            return st;
        r->res->rounds = round;
        st = tdx_loop__jlog(r, json_pack("{s:s, s:i, s:i, s:i, s:f}", "type", "round_end", "round", round,
                               "kept", best_i >= 0, "decided_level", decided, "elapsed_s",
                               r->elapsed_before + tdx_loop__now_s() - r->t0));
        if (st)
            return st;
        if (ncands == 0)
            return stop(r, round, "no rewrite family applies");
        if (best_i < 0)
            return stop(r, round, "no candidate was correct and faster");
    }
}

tdx_status tdx_loop_run(const tdx_loop_opts *o, tdx_loop_result *res, tdx_diags *diags)
{
    memset(res, 0, sizeof *res);
    res->final_fraction = -1;
    if (!o->task_path || !o->exec.check || !o->exec.time)
        return TDX_ERR_ARG;
    run r = {0};
    r.o = o;
    r.res = res;
    r.diags = diags;
    r.jnl.fd = -1;
    r.t0 = tdx_loop__now_s();
    r.last_fraction = r.initial_fraction = -1;
    r.dx = o->dx;
    if (r.dx.levels[1].run == tdx_dx_level1 && !r.dx.levels[1].ud) {
        r.l1.ceilings = o->ceilings;
        r.dx.levels[1].ud = &r.l1;
    }
    if (o->run_dir)
        snprintf(res->run_dir, sizeof res->run_dir, "%s", o->run_dir);
    else
        sibling(o->task_path, ".tdx", res->run_dir, sizeof res->run_dir);
    if (o->out_path)
        snprintf(res->out_path, sizeof res->out_path, "%s", o->out_path);
    else
        sibling(o->task_path, ".opt.py", res->out_path, sizeof res->out_path);
    snprintf(r.best_path, sizeof r.best_path, "%s/best.py", res->run_dir);

    int lock_fd = -1; /* the run directory, held (flock) while the run works in it */
    tdx_status st = tdx_file_read(o->task_path, TDX_LOOP_MAX_SRC, &r.orig, &r.olen);
    if (st) {
        tdx_diags_add(diags, TDX_SEV_ERROR, o->task_path, 0, 0, "cannot read the task: %s",
                      st == TDX_ERR_IO ? strerror(errno) : tdx_status_str(st));
        return st;
    }
    if (tdx_file_is_binary(r.orig, r.olen)) {
        tdx_diags_add(diags, TDX_SEV_ERROR, o->task_path, 0, 0, "not a Python file (binary content)");
        free(r.orig);
        return TDX_ERR_INPUT;
    }
    if (!tdx_dx_task_like(o->task_path, r.orig, r.olen)) {
        tdx_diags_add(diags, TDX_SEV_ERROR, o->task_path, 0, 0,
                      "%s, and optimize checks and times the kernel through them (README, \"Task format\")",
                      TDX_DX_NOT_A_TASK);
        free(r.orig);
        return TDX_ERR_INPUT;
    }
    r.best = malloc(r.olen + 1);
    r.tried = json_object();
    r.replay = json_object();
    if (!r.best || !r.tried || !r.replay) {
        st = TDX_ERR_NOMEM;
        goto out;
    }
    memcpy(r.best, r.orig, r.olen + 1);
    r.blen = r.olen;
    if (mkdir(res->run_dir, 0755) != 0 && errno != EEXIST) {
        tdx_diags_add(diags, TDX_SEV_ERROR, res->run_dir, 0, 0, "cannot create the run directory: %s",
                      strerror(errno));
        st = TDX_ERR_IO;
        goto out;
    }
    /* one run at a time in a run directory, held until the run returns; a
     * file system without flock runs unguarded */
    lock_fd = open(res->run_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        tdx_diags_add(diags, TDX_SEV_ERROR, res->run_dir, 0, 0,
                      "another run of this task is working in this directory now");
        st = TDX_ERR_ARG;
        goto out;
    }
    char jpath[1200];
    snprintf(jpath, sizeof jpath, "%s/journal.jsonl", res->run_dir);
    struct stat sb;
    int have_journal = stat(jpath, &sb) == 0 && sb.st_size > 0;
    if (have_journal && !baseline_recorded(jpath, diags)) {
        /* the run stopped (or died) before the task passed its own check:
         * nothing in it to continue, and the task may have been fixed since */
        if (unlink(jpath) != 0) {
            tdx_diags_add(diags, TDX_SEV_ERROR, jpath, 0, 0, "cannot start afresh: %s", strerror(errno));
            st = TDX_ERR_IO;
            goto out;
        }
        have_journal = 0;
    }
    if (have_journal && !o->resume) {
        tdx_diags_add(diags, TDX_SEV_ERROR, jpath, 0, 0,
                      "a run is already recorded here: continue it with --resume, or remove %s",
                      res->run_dir);
        st = TDX_ERR_ARG;
        goto out;
    }
    st = tdx_jnl_open(&r.jnl, jpath, diags);
    if (st)
        goto out;
    int first_round = 1, stopped = 0;
    if (have_journal) {
        json_t *entries = NULL;
        st = tdx_jnl_read(jpath, &entries, diags);
        if (!st)
            st = resume_state(&r, entries, &first_round, &stopped);
        json_decref(entries);
        if (st == TDX_ERR_NOTFOUND)
            have_journal = 0; /* nothing useful recorded: start afresh */
        else if (st) {
            tdx_diags_add(diags, TDX_SEV_ERROR, jpath, 0, 0, "cannot resume from this journal");
            goto out;
        }
        st = TDX_OK;
        if (stopped)
            goto out; /* already finished: the result stands */
        if (have_journal)
            tdx_loop__jlog(&r, json_pack("{s:s, s:i}", "type", "resume", "round", first_round));
    }
    if (!have_journal) {
        char hash[17];
        tdx_loop_hash(r.orig, r.olen, hash);
        json_t *start = json_pack("{s:s, s:s, s:s, s:i, s:f, s:i}", "type", "start", "task", o->task_path,
                                  "task_hash", hash, "max_rounds", o->max_rounds > 0 ? o->max_rounds : 15,
                                  "target_fraction", o->target_fraction > 0 ? o->target_fraction : TARGET_FRACTION,
                                  "max_level", o->dx.max_level);
        if (start && o->reach_s > 0) { /* what torch reached, and how close counts as reaching it */
            json_object_set_new(start, "reach_s", json_real(o->reach_s));
            json_object_set_new(start, "reach_margin", json_real(tdx_loop__reach_margin(o)));
        }
        st = tdx_loop__jlog(&r, start);
        if (st)
            goto out;
        /* the task's own kernel must pass its check before anything is compared to it */
        tdx_loop_check chk = {0};
        tdx_loop_trial btr;
        double base_parts[TDX_LOOP_CHECK_PARTS] = {-1, -1, -1, -1, -1};
        int base_timed = 0;
        double base_check_s, base_time_s = -1;
        if (o->exec.trial) {
            /* the task checked and timed alone, in one go where the executor can */
            tdx_loop__progress(&r, 0, 0, 0, "check+time");
            memset(&btr, 0, sizeof btr);
            btr.start_s = btr.precompile_s = btr.child_s = btr.judge_s = btr.alone_s = -1;
            st = o->exec.trial(o->exec.ud, o->task_path, NULL, o->task_path, &btr);
            if (!st)
                st = btr.check_st;
            chk = btr.check;
            base_check_s = btr.check_s;
            base_timed = btr.timed;
            tdx_loop__trial_parts(&btr, base_parts);
        } else {
            tdx_loop__progress(&r, 0, 0, 0, "check");
            double c0 = tdx_loop__now_s();
            st = o->exec.check(o->exec.ud, o->task_path, o->task_path, &chk);
            base_check_s = tdx_loop__now_s() - c0;
        }
        if (!st && !chk.ok && chk.task_unfit) {
            /* not a kernel's verdict: the file is no usable task */
            tdx_diags_add(diags, TDX_SEV_ERROR, o->task_path, 0, 0, "the task cannot be used: %s", chk.reason);
            stop(&r, 0, "the task cannot be used");
            st = TDX_ERR_INPUT;
            goto out;
        }
        if (st || !chk.ok) {
            tdx_diags_add(diags, TDX_SEV_ERROR, o->task_path, 0, 0, "the task's own kernel fails its check: %s",
                          chk.reason[0] ? chk.reason : tdx_status_str(st));
            stop(&r, 0, "the task's own kernel fails its check");
            st = TDX_ERR_CHILD;
            goto out;
        }
        st = tdx_file_write(r.best_path, r.best, r.blen);
        if (st)
            goto out;
        tdx_loop_timing t = {0};
        t.fraction = -1;
        if (base_timed) {
            t = btr.timing;
            st = btr.time_st;
            base_time_s = btr.time_s;
        } else {
            tdx_loop__progress(&r, 0, 0, 0, "time");
            double c0 = tdx_loop__now_s();
            st = o->exec.time(o->exec.ud, o->task_path, r.best_path, NULL, &t);
            base_time_s = tdx_loop__now_s() - c0;
        }
        if (st) {
            tdx_diags_add(diags, TDX_SEV_ERROR, o->task_path, 0, 0, "cannot time the task: %s",
                          t.reason[0] ? t.reason : tdx_status_str(st));
            stop(&r, 0, "the task cannot be timed");
            st = TDX_ERR_CHILD;
            goto out;
        }
        res->initial_s = res->final_s = t.base_median_s;
        remember_timing(&r, t.base_median_s, t.base_iqr_s, &t);
        r.last_fraction = r.initial_fraction = t.fraction;
        res->final_fraction = t.fraction;
        json_t *be = json_pack("{s:s, s:f, s:f, s:f}", "type", "baseline", "median_s",
                               t.base_median_s, "iqr_s", t.base_iqr_s, "fraction", t.fraction);
        if (be) {
            json_object_set_new(be, "check_s", json_real(base_check_s));
            json_object_set_new(be, "time_s", json_real(base_time_s));
            tdx_loop__set_check_parts(be, base_parts);
        }
        /* the task's work, so that a report can place it on the roofline */
        if (be && t.bytes > 0)
            json_object_set_new(be, "bytes", json_real(t.bytes));
        if (be && t.flops > 0)
            json_object_set_new(be, "flops", json_real(t.flops));
        if (be && t.dtype[0])
            json_object_set_new(be, "dtype", json_string(t.dtype));
        if (be && chk.sandbox_known)
            json_object_set_new(be, "sandbox", tdx_loop__sandbox_json(&chk));
        if (be && chk.tolerance > 0)
            json_object_set_new(be, "tolerance", json_real(chk.tolerance));
        st = tdx_loop__jlog(&r, be);
        if (st)
            goto out;
    }
    st = rounds(&r, first_round);
out:
    if (lock_fd >= 0)
        close(lock_fd); /* lets go of the run directory */
    tdx_jnl_close(&r.jnl);
    json_decref(r.tried);
    json_decref(r.replay);
    free(r.best);
    free(r.orig);
    return st;
}
