/* The report model as JSON ("tritondx/report" v1): what the Markdown and
 * HTML reports show, for scripts and for golden tests. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report/run_int.h"

// Set k to a string, or to null when s is NULL.
static void set_str(json_t *o, const char *k, const char *s)
{
    json_object_set_new(o, k, s ? json_string(s) : json_null());
}

// Set k to a number, or to null when it is unknown (below min).
static void set_num(json_t *o, const char *k, double v, double min)
{
    json_object_set_new(o, k, v >= min ? json_real(v) : json_null());
}

// A level's (or a round's) cost.
static json_t *cost_json(const tdx_rep_cost *c)
{
    json_t *o = json_object();
    if (c->state)
        json_object_set_new(o, "state", json_string(c->state));
    if (c->why)
        json_object_set_new(o, "why", json_string(c->why));
    json_object_set_new(o, "seconds", json_real(c->seconds));
    json_object_set_new(o, "compiles", json_integer(c->compiles));
    json_object_set_new(o, "gpu_runs", json_integer(c->gpu_runs));
    json_object_set_new(o, "tokens", json_integer(c->tokens));
    return o;
}

// A finding as the journal recorded it.
static json_t *finding_json(const tdx_rep_finding *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_integer(f->id));
    set_str(o, "rule", f->rule);
    json_object_set_new(o, "level", json_integer(f->level));
    set_str(o, "file", f->file);
    json_object_set_new(o, "line", json_integer(f->line));
    set_str(o, "kernel", f->kernel);
    set_str(o, "message", f->message);
    set_str(o, "hypothesis", f->hypothesis);
    set_str(o, "family", f->family);
    set_num(o, "confidence", f->confidence, 0);
    json_t *facts = json_object();
    for (size_t i = 0; i < f->nfacts; i++)
        json_object_set_new(facts, f->facts[i].key, json_string(f->facts[i].value));
    json_object_set_new(o, "facts", facts);
    set_str(o, "evidence", f->evidence);
    return o;
}

// A candidate with its verdict and timing.
static json_t *cand_json(const tdx_rep_cand *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(c->index));
    set_str(o, "family", c->family);
    set_str(o, "origin", c->origin);
    set_str(o, "summary", c->summary);
    json_t *cites = json_array();
    for (int i = 0; i < c->ncites; i++)
        json_array_append_new(cites, json_integer(c->cites[i]));
    json_object_set_new(o, "cites", cites);
    set_str(o, "verdict", c->verdict);
    json_object_set_new(o, "kept", json_boolean(c->kept));
    set_str(o, "reason", c->reason);
    if (c->have_timing)
        json_object_set_new(o, "timing",
                            json_pack("{s:f, s:f, s:f, s:f}", "cand_median_s", c->cand_median_s,
                                      "cand_iqr_s", c->cand_iqr_s, "base_median_s", c->base_median_s,
                                      "base_iqr_s", c->base_iqr_s));
    else
        json_object_set_new(o, "timing", json_null());
    if (c->against > 0)
        json_object_set_new(o, "against", json_integer(c->against));
    json_object_set_new(o, "tokens", json_integer(c->tokens));
    set_str(o, "diff", c->diff);
    return o;
}

// A round: decision, findings, levels, candidates, what was kept, cost.
static json_t *round_json(const tdx_rep_round *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "round", json_integer(r->round));
    json_object_set_new(o, "decided_level", r->decided_level >= 0 ? json_integer(r->decided_level)
                                                                   : json_null());
    json_object_set_new(o, "deciding_finding",
                        r->deciding_finding > 0 ? json_integer(r->deciding_finding) : json_null());
    json_t *fs = json_array();
    for (size_t i = 0; i < r->nfindings; i++)
        json_array_append_new(fs, finding_json(&r->findings[i]));
    json_object_set_new(o, "findings", fs);
    json_t *lv = json_array();
    for (int i = 0; i < 4 && r->have_diagnosis; i++)
        json_array_append_new(lv, cost_json(&r->levels[i]));
    json_object_set_new(o, "levels", lv);
    json_t *cs = json_array();
    for (size_t i = 0; i < r->ncands; i++)
        json_array_append_new(cs, cand_json(&r->cands[i]));
    json_object_set_new(o, "candidates", cs);
    if (r->kept_index) {
        json_t *k = json_object();
        json_object_set_new(k, "index", json_integer(r->kept_index));
        json_object_set_new(k, "median_s", json_real(r->keep_median_s));
        json_object_set_new(k, "speedup", json_real(r->keep_speedup));
        set_num(k, "fraction", r->keep_fraction, 0);
        json_object_set_new(o, "kept", k);
    } else {
        json_object_set_new(o, "kept", json_null());
    }
    tdx_rep_cost c;
    tdx_rep__round_cost(r, &c);
    json_object_set_new(o, "cost", cost_json(&c));
    json_object_set_new(o, "ended", json_boolean(r->ended));
    return o;
}

// The ceilings, the work and the points of the roofline.
static json_t *roof_json(const tdx_rep_opt *op)
{
    const tdx_rep_roof *r = &op->roof;
    json_t *o = json_object();
    if (r->have_ceilings) {
        json_t *c = json_object();
        set_str(c, "device", r->device);
        json_object_set_new(c, "copy_bytes_per_s", json_real(r->copy_bw));
        for (int i = 0; i < 4; i++)
            if (r->mm[i] > 0)
                json_object_set_new(c, tdx_rep_mm_names[i], json_real(r->mm[i]));
        json_object_set_new(o, "ceilings", c);
    } else {
        json_object_set_new(o, "ceilings", json_null());
    }
    set_num(o, "bytes", r->have_work ? r->bytes : -1, 0);
    set_num(o, "flops", r->have_work ? r->flops : -1, 0);
    set_str(o, "dtype", r->dtype);
    set_str(o, "no_chart", r->why);
    json_t *pts = json_array();
    tdx_rep_point p[64];
    size_t n = tdx_rep__points(op, p, 64);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_pack("{s:s, s:s, s:f}", "id", p[i].id, "label", p[i].label, "median_s",
                              p[i].seconds);
        set_num(x, "fraction", p[i].fraction, 0);
        if (!r->why) {
            json_object_set_new(x, "intensity", json_real(r->flops / r->bytes));
            json_object_set_new(x, "flops_per_s", json_real(r->flops / p[i].seconds));
        }
        json_array_append_new(pts, x);
    }
    json_object_set_new(o, "points", pts);
    return o;
}

// An optimize run.
static json_t *optimize_json(const tdx_rep_model *m)
{
    const tdx_rep_opt *op = &m->opt;
    json_t *o = json_object();
    set_str(o, "task", op->task);
    set_str(o, "task_hash", op->task_hash);
    json_object_set_new(o, "max_rounds", json_integer(op->max_rounds));
    json_object_set_new(o, "max_level", json_integer(op->max_level));
    set_num(o, "target_fraction", op->target_fraction, 0);
    if (op->have_baseline)
        json_object_set_new(o, "baseline",
                            json_pack("{s:f, s:f}", "median_s", op->base_median_s, "iqr_s",
                                      op->base_iqr_s));
    else
        json_object_set_new(o, "baseline", json_null());
    set_num(o, "initial_s", op->initial_s, 1e-300);
    set_num(o, "final_s", op->final_s, 1e-300);
    double sp = tdx_rep__speedup(op);
    set_num(o, "speedup", sp, 1e-300);
    set_num(o, "fraction_before", op->base_fraction, 0);
    set_num(o, "fraction_after", op->final_fraction, 0);
    json_object_set_new(o, "tried", json_integer(op->tried));
    json_object_set_new(o, "kept", json_integer(op->kept));
    json_object_set_new(o, "stopped", json_boolean(op->stopped));
    set_str(o, "stop_reason", op->stop_reason);
    json_object_set_new(o, "resumes", json_integer(op->resumes));
    if (op->confirm_outcome) {
        json_t *c = json_object();
        set_str(c, "outcome", op->confirm_outcome);
        set_num(c, "chained_final_s", op->chained_s, 1e-300);
        json_object_set_new(o, "confirm", c);
    }
    if (op->torch_eager_s > 0 || op->torch_compile_s > 0) {
        json_t *tb = json_object();
        set_num(tb, "eager_s", op->torch_eager_s, 1e-300);
        set_num(tb, "compile_s", op->torch_compile_s, 1e-300);
        set_num(tb, "compile_build_s", op->torch_compile_build_s, 1e-300);
        json_object_set_new(o, "torch_beside", tb);
    }
    tdx_rep_cost c;
    tdx_rep__run_cost(op, &c);
    json_object_set_new(o, "cost", cost_json(&c));
    if (op->verify.checks) {
        const tdx_rep_verify *v = &op->verify;
        json_t *vj = json_pack("{s:i, s:f, s:i, s:f, s:f}", "checks", v->checks, "check_s", v->check_s, "timings",
                               v->timings, "time_s", v->time_s, "lock_wait_s", v->wait_s);
        if (vj && v->have_parts)
            json_object_set_new(vj, "check_parts_s",
                                json_pack("{s:f, s:f, s:f, s:f}", "start", v->start_s, "precompile",
                                          v->precompile_s, "child", v->child_s, "judge", v->judge_s));
        json_object_set_new(o, "verification", vj);
    }
    json_object_set_new(o, "roofline", roof_json(op));
    json_t *rs = json_array();
    for (size_t i = 0; i < op->nrounds; i++)
        json_array_append_new(rs, round_json(&op->rounds[i]));
    json_object_set_new(o, "rounds", rs);
    return o;
}

// A bench run: every results file.
static json_t *bench_json(const tdx_rep_model *m)
{
    const tdx_rep_bench *b = &m->bench;
    json_t *sets = json_array();
    for (size_t i = 0; i < b->nsets; i++) {
        const tdx_rep_results *s = &b->sets[i];
        const tdx_bench_summary *u = &s->sum;
        json_t *rows = json_array();
        for (size_t k = 0; k < s->rows.len; k++) {
            json_t *row = tdx_bench_row_json(&s->rows.rows[k]);
            if (row && s->run_dirs && s->run_dirs[k])
                json_object_set_new(row, "run_dir", json_string(s->run_dirs[k]));
            json_array_append_new(rows, row);
        }
        json_t *sum = json_pack("{s:I, s:I, s:I, s:I}", "tasks", (json_int_t)u->tasks, "ok",
                                (json_int_t)u->ok, "above2", (json_int_t)u->above2, "above5",
                                (json_int_t)u->above5);
        set_num(sum, "geomean", u->geomean, 0);
        set_num(sum, "median", u->median, 0);
        set_num(sum, "median_fraction", u->median_fraction, 0);
        set_num(sum, "bound_geomean", u->bound_geomean, 0);
        set_num(sum, "bound_median", u->bound_median, 0);
        json_object_set_new(sum, "seconds", json_real(u->seconds));
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(s->name));
        set_str(o, "device", s->device);
        json_object_set_new(o, "max_level", s->max_level >= 0 ? json_integer(s->max_level) : json_null());
        json_object_set_new(o, "main", json_boolean(i == b->main));
        json_object_set_new(o, "summary", sum);
        json_object_set_new(o, "gpu_runs", json_integer(s->gpu_runs));
        json_object_set_new(o, "compiles", json_integer(s->compiles));
        json_object_set_new(o, "tokens", json_integer(s->tokens));
        json_object_set_new(o, "rows", rows);
        json_array_append_new(sets, o);
    }
    json_t *o = json_object();
    json_object_set_new(o, "results", sets);
    return o;
}

// The model as one JSON document.
tdx_status tdx_rep_run_json(const tdx_rep_model *m, tdx_buf *out)
{
    json_t *doc = json_object();
    if (!doc)
        return TDX_ERR_NOMEM;
    json_object_set_new(doc, "schema", json_string(TDX_REP_RUN_SCHEMA));
    json_object_set_new(doc, "version", json_integer(1));
    json_object_set_new(doc, "kind", json_string(m->kind == TDX_REP_OPTIMIZE ? "optimize" : "bench"));
    json_t *notes = json_array();
    for (size_t i = 0; i < m->nnotes; i++)
        json_array_append_new(notes, json_string(m->notes[i]));
    json_object_set_new(doc, "notes", notes);
    json_object_set_new(doc, m->kind == TDX_REP_OPTIMIZE ? "optimize" : "bench",
                        m->kind == TDX_REP_OPTIMIZE ? optimize_json(m) : bench_json(m));
    char *s = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
    json_decref(doc);
    if (!s)
        return TDX_ERR_NOMEM;
    tdx_status st = tdx_buf_adds(out, s);
    if (!st)
        st = tdx_buf_addc(out, '\n');
    free(s);
    return st;
}
