/* Shared computations of the run reports: costs, points, roofs, formats. */
#include "report/run_int.h"

#include <stdio.h>
#include <string.h>

#include "report/svg.h"

// The file name of a path.
const char *tdx_rep__base(const char *p)
{
    if (!p)
        return "";
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

// A round's cost over its levels and candidates.
void tdx_rep__round_cost(const tdx_rep_round *r, tdx_rep_cost *sum)
{
    memset(sum, 0, sizeof *sum);
    for (int lv = 0; lv < 4; lv++) {
        sum->seconds += r->levels[lv].seconds;
        sum->compiles += r->levels[lv].compiles;
        sum->gpu_runs += r->levels[lv].gpu_runs;
        sum->tokens += r->levels[lv].tokens;
    }
    for (size_t i = 0; i < r->ncands; i++)
        sum->tokens += r->cands[i].tokens;
}

// The run's cost over its rounds.
void tdx_rep__run_cost(const tdx_rep_opt *o, tdx_rep_cost *sum)
{
    memset(sum, 0, sizeof *sum);
    for (size_t i = 0; i < o->nrounds; i++) {
        tdx_rep_cost c;
        tdx_rep__round_cost(&o->rounds[i], &c);
        sum->seconds += c.seconds;
        sum->compiles += c.compiles;
        sum->gpu_runs += c.gpu_runs;
        sum->tokens += c.tokens;
    }
}

// Median ± IQR.
void tdx_rep__fmt_mi(char *out, size_t n, double median, double iqr)
{
    char a[32], b[32];
    tdx_rep_fmt_time(a, sizeof a, median);
    if (iqr > 0) {
        tdx_rep_fmt_time(b, sizeof b, iqr);
        snprintf(out, n, "%s ± %s", a, b);
    } else {
        snprintf(out, n, "%s", a);
    }
}

// A fraction as a percentage.
void tdx_rep__fmt_pct(char *out, size_t n, double f)
{
    if (f < 0)
        snprintf(out, n, "–");
    else if (f < 0.01)
        snprintf(out, n, "%.2g%%", 100 * f);
    else
        snprintf(out, n, "%.0f%%", 100 * f);
}

// A round's finding by id.
const tdx_rep_finding *tdx_rep__finding(const tdx_rep_round *r, int id)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].id == id)
            return &r->findings[i];
    return NULL;
}

// The compute roof and its dtype.
double tdx_rep__peak(const tdx_rep_roof *roof, const char **name)
{
    double best = 0;
    const char *bn = NULL;
    for (int i = 0; i < 4; i++) {
        if (roof->dtype && strcmp(roof->dtype, tdx_rep_mm_names[i]) == 0 && roof->mm[i] > 0) {
            best = roof->mm[i];
            bn = tdx_rep_mm_names[i];
            break;
        }
        if (roof->mm[i] > best) {
            best = roof->mm[i];
            bn = tdx_rep_mm_names[i];
        }
    }
    if (name)
        *name = bn;
    return best;
}

// The roof at an intensity.
double tdx_rep__roof_at(const tdx_rep_roof *roof, double intensity)
{
    double mem = intensity * roof->copy_bw, peak = tdx_rep__peak(roof, NULL);
    return peak > 0 && peak < mem ? peak : mem;
}

// The kernel states to place on the charts.
size_t tdx_rep__points(const tdx_rep_opt *o, tdx_rep_point *pts, size_t max)
{
    size_t n = 0;
    if (!o->have_baseline || !(o->base_median_s > 0) || max < 2)
        return 0;
    tdx_rep_point *p = &pts[n++];
    p->id = "initial";
    snprintf(p->label, sizeof p->label, "initial");
    p->seconds = o->base_median_s;
    p->fraction = o->base_fraction;
    /* every kept rewrite but the last, which is the final kernel */
    int last = 0;
    for (size_t i = 0; i < o->nrounds; i++)
        if (o->rounds[i].kept_index && o->rounds[i].keep_median_s > 0)
            last = o->rounds[i].round;
    for (size_t i = 0; i < o->nrounds && n + 1 < max; i++) {
        const tdx_rep_round *r = &o->rounds[i];
        if (!r->kept_index || !(r->keep_median_s > 0) || r->round == last)
            continue;
        p = &pts[n++];
        p->id = "kept";
        snprintf(p->label, sizeof p->label, "after round %d", r->round);
        p->seconds = r->keep_median_s;
        p->fraction = r->keep_fraction;
    }
    p = &pts[n++];
    p->id = "final";
    if (last)
        snprintf(p->label, sizeof p->label, "final (round %d)", last);
    else
        snprintf(p->label, sizeof p->label, "final (nothing kept)");
    p->seconds = o->final_s > 0 ? o->final_s : o->base_median_s;
    p->fraction = o->final_fraction;
    return n;
}

// Initial over final time.
double tdx_rep__speedup(const tdx_rep_opt *o)
{
    return o->initial_s > 0 && o->final_s > 0 ? o->initial_s / o->final_s : 0;
}

// The verdict as the tables show it.
const char *tdx_rep__verdict_word(const tdx_rep_cand *c)
{
    if (c->kept)
        return "kept";
    return c->verdict ? c->verdict : "?";
}

// The work and the roof in one sentence.
tdx_status tdx_rep__roof_sentence(const tdx_rep_roof *r, tdx_buf *b)
{
    char a[48];
    const char *pn;
    double peak = tdx_rep__peak(r, &pn), in = r->flops / r->bytes;
    tdx_rep_fmt_rate(a, sizeof a, tdx_rep__roof_at(r, in), "FLOP/s");
    TRY(tdx_buf_printf(b, "The task does %.4g FLOP over %.4g bytes (%.3g FLOP/byte); the roof there "
                          "allows %s",
                       r->flops, r->bytes, in, a));
    if (peak > 0)
        TRY(tdx_buf_printf(b, " (copy bandwidth up to the ridge at %.3g FLOP/byte, then the %s matmul "
                              "rate%s)",
                           peak / r->copy_bw, pn,
                           r->dtype ? "" : ": the run does not name the kernel's dtype, so the "
                                           "highest rate is the roof"));
    return tdx_buf_addc(b, '.');
}

tdx_status tdx_rep__verify_text(const tdx_rep_verify *v, tdx_buf *b)
{
    tdx_status st = tdx_buf_printf(b, "%d check%s, %.3g s", v->checks, v->checks == 1 ? "" : "s", v->check_s);
    if (!st && v->have_parts) {
        const char *names[4] = {"start", "precompile", "child", "judge"};
        const double secs[4] = {v->start_s, v->precompile_s, v->child_s, v->judge_s};
        const char *sep = " (";
        for (int i = 0; i < 4 && !st; i++)
            if (secs[i] > 0) {
                st = tdx_buf_printf(b, "%s%s %.3g s", sep, names[i], secs[i]);
                sep = ", ";
            }
        if (!st && sep[0] == ',')
            st = tdx_buf_adds(b, ")");
    }
    if (!st)
        st = tdx_buf_printf(b, "; %d timing%s, %.3g s", v->timings, v->timings == 1 ? "" : "s", v->time_s);
    if (!st && v->wait_s > 0)
        st = tdx_buf_printf(b, "; %.3g s of it waiting for the GPU", v->wait_s);
    return st;
}

tdx_status tdx_rep__text(tdx_buf *b, tdx_rep_mark m, const char *s)
{
    return m == TDX_REP_HTML ? tdx_rep_html_esc(b, s) : tdx_rep_md_text(b, s);
}

tdx_status tdx_rep__kv(tdx_buf *b, tdx_rep_mark m, const char *key)
{
    TRY(tdx_buf_adds(b, m == TDX_REP_HTML ? "<tr><th>" : "| "));
    TRY(tdx_rep__text(b, m, key));
    return tdx_buf_adds(b, m == TDX_REP_HTML ? "</th><td>" : " | ");
}

tdx_status tdx_rep__kv_end(tdx_buf *b, tdx_rep_mark m)
{
    return tdx_buf_adds(b, m == TDX_REP_HTML ? "</td></tr>\n" : " |\n");
}

tdx_status tdx_rep__cost_text(tdx_buf *b, const tdx_rep_cost *c)
{
    return tdx_buf_printf(b, "%.3g s, %ld compile%s, %ld GPU run%s, %ld LLM token%s", c->seconds,
                          c->compiles, c->compiles == 1 ? "" : "s", c->gpu_runs,
                          c->gpu_runs == 1 ? "" : "s", c->tokens, c->tokens == 1 ? "" : "s");
}

tdx_status tdx_rep__summary_tail(tdx_buf *b, tdx_rep_mark m, const tdx_rep_opt *o)
{
    TRY(tdx_rep__kv(b, m, "deepest level"));
    TRY(tdx_buf_printf(b, "%d", o->max_level));
    TRY(tdx_rep__kv_end(b, m));
    TRY(tdx_rep__kv(b, m, "stopped"));
    TRY(o->stopped ? tdx_rep__text(b, m, o->stop_reason ? o->stop_reason : "?")
                   : tdx_buf_adds(b, "not yet (interrupted)"));
    TRY(tdx_rep__kv_end(b, m));
    tdx_rep_cost cost;
    tdx_rep__run_cost(o, &cost);
    TRY(tdx_rep__kv(b, m, "diagnosis cost"));
    TRY(tdx_rep__cost_text(b, &cost));
    TRY(tdx_rep__kv_end(b, m));
    if (o->verify.checks) {
        TRY(tdx_rep__kv(b, m, "checks and timings"));
        TRY(tdx_rep__verify_text(&o->verify, b));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (o->elapsed_s > 0) {
        TRY(tdx_rep__kv(b, m, "wall time"));
        TRY(tdx_buf_printf(b, "%.3g s", o->elapsed_s));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (o->resumes) {
        TRY(tdx_rep__kv(b, m, "resumed"));
        TRY(tdx_buf_printf(b, "%d time%s", o->resumes, o->resumes == 1 ? "" : "s"));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (o->confirm_outcome) {
        char ch[64];
        tdx_rep_fmt_time(ch, sizeof ch, o->chained_s);
        TRY(tdx_rep__kv(b, m, "beside the task at the end"));
        TRY(tdx_rep__text(b, m, o->confirm_outcome[0] ? o->confirm_outcome : "not timed"));
        TRY(tdx_buf_printf(b, " (the rounds' ratios chained: %s)", ch));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (o->torch_eager_s > 0 || o->torch_compile_s > 0) {
        char te[64] = "–", tc[64] = "–", fs[64];
        if (o->torch_eager_s > 0)
            tdx_rep_fmt_time(te, sizeof te, o->torch_eager_s);
        if (o->torch_compile_s > 0)
            tdx_rep_fmt_time(tc, sizeof tc, o->torch_compile_s);
        tdx_rep_fmt_time(fs, sizeof fs, o->final_s);
        TRY(tdx_rep__kv(b, m, "torch timed beside the result"));
        TRY(tdx_buf_printf(b, "eager %s, torch.compile %s (the result: %s", te, tc, fs));
        if (o->torch_compile_build_s > 0)
            TRY(tdx_buf_printf(b, "; torch.compile's compile took %.1f s", o->torch_compile_build_s));
        TRY(tdx_buf_adds(b, ")"));
        TRY(tdx_rep__kv_end(b, m));
    }
    return TDX_OK;
}

/* The summary's row of results within TDX_BENCH_TIE of torch eager and of
 * torch.compile, either way; prefix names which torch columns. */
static tdx_status ties_row(tdx_buf *b, tdx_rep_mark m, const char *prefix, size_t eager, size_t compile)
{
    char key[128];
    snprintf(key, sizeof key, "%swithin %.0f%% of torch eager / torch.compile (a tie either way)", prefix,
             100 * TDX_BENCH_TIE);
    TRY(tdx_rep__kv(b, m, key));
    TRY(tdx_buf_printf(b, "%zu / %zu", eager, compile));
    return tdx_rep__kv_end(b, m);
}

tdx_status tdx_rep__bench_rows(tdx_buf *b, tdx_rep_mark m, const tdx_bench_summary *s)
{
    TRY(tdx_rep__kv(b, m, "tasks run / total"));
    TRY(tdx_buf_printf(b, "%zu / %zu", s->ok, s->tasks));
    TRY(tdx_rep__kv_end(b, m));
    if (s->ok) {
        TRY(tdx_rep__kv(b, m, "geomean speedup"));
        TRY(tdx_buf_printf(b, "%.2f×", s->geomean));
        TRY(tdx_rep__kv_end(b, m));
        TRY(tdx_rep__kv(b, m, "median speedup"));
        TRY(tdx_buf_printf(b, "%.2f×", s->median));
        TRY(tdx_rep__kv_end(b, m));
        TRY(tdx_rep__kv(b, m, "> 2×"));
        TRY(tdx_buf_printf(b, "%zu / %zu", s->above2, s->ok));
        TRY(tdx_rep__kv_end(b, m));
        TRY(tdx_rep__kv(b, m, "> 5×"));
        TRY(tdx_buf_printf(b, "%zu / %zu", s->above5, s->ok));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (s->median_fraction >= 0) {
        TRY(tdx_rep__kv(b, m, "median final roofline"));
        TRY(tdx_buf_printf(b, "%.0f%%", 100 * s->median_fraction));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (s->bound_geomean > 0) {
        TRY(tdx_rep__kv(b, m, "geomean / median at every roofline floor (the most the suite allows)"));
        TRY(tdx_buf_printf(b, "%.2f× / %.2f×", s->bound_geomean, s->bound_median));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (s->with_eager) {
        TRY(tdx_rep__kv(b, m, "faster than torch eager"));
        TRY(tdx_buf_printf(b, "%zu / %zu", s->faster_eager, s->with_eager));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (s->with_compile) {
        TRY(tdx_rep__kv(b, m, "faster than torch.compile"));
        TRY(tdx_buf_printf(b, "%zu / %zu", s->faster_compile, s->with_compile));
        TRY(tdx_rep__kv_end(b, m));
    }
    if (s->with_eager_beside || s->with_compile_beside) {
        TRY(tdx_rep__kv(b, m, "timed beside torch at the end of each run: faster than torch eager / torch.compile"));
        TRY(tdx_buf_printf(b, "%zu / %zu, %zu / %zu", s->faster_eager_beside, s->with_eager_beside,
                           s->faster_compile_beside, s->with_compile_beside));
        TRY(tdx_rep__kv_end(b, m));
        TRY(ties_row(b, m, "timed beside torch: ", s->tie_eager_beside, s->tie_compile_beside));
        if (s->beside_build_median_s > 0) {
            TRY(tdx_rep__kv(b, m, "timed beside torch: torch.compile's compile there, median / most"));
            TRY(tdx_buf_printf(b, "%.1f s / %.1f s", s->beside_build_median_s, s->beside_build_max_s));
            TRY(tdx_rep__kv_end(b, m));
        }
    }
    if (s->with_eager || s->with_compile)
        TRY(ties_row(b, m, "", s->tie_eager, s->tie_compile));
    if (s->looser) {
        TRY(tdx_rep__kv(b, m, "† judged at a looser tolerance than the task as given (a tf32 dot on fp32 data)"));
        TRY(tdx_buf_printf(b, "%zu (faster than torch.compile: %zu)", s->looser, s->looser_faster_compile));
        TRY(tdx_rep__kv_end(b, m));
    }
    TRY(tdx_rep__kv(b, m, "wall time of all runs"));
    TRY(tdx_buf_printf(b, "%.0f s", s->seconds));
    return tdx_rep__kv_end(b, m);
}
