/* The run report as Markdown: an optimize run round by round, or a bench
 * run's table, summary and ablation. Text from the run is escaped (inline)
 * or fenced (code, diffs, IR excerpts). */
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "report/run_int.h"
#include "report/svg.h"

// What is missing or cut short, as block quotes.
static tdx_status notes(const tdx_rep_model *m, tdx_buf *b)
{
    for (size_t i = 0; i < m->nnotes; i++) {
        TRY(tdx_buf_adds(b, "> **Note:** "));
        TRY(tdx_rep_md_text(b, m->notes[i]));
        TRY(tdx_buf_adds(b, "\n"));
    }
    return m->nnotes ? tdx_buf_adds(b, "\n") : TDX_OK;
}

// The run at a glance: time, roofline, rounds, deciding levels, stop, cost.
static tdx_status summary(const tdx_rep_opt *o, tdx_buf *b)
{
    char a[64], c[64], p1[16], p2[16];
    TRY(tdx_buf_adds(b, "## Summary\n\n| | |\n|---|---|\n"));
    if (o->have_baseline) {
        tdx_rep__fmt_mi(a, sizeof a, o->base_median_s, o->base_iqr_s);
        tdx_rep_fmt_time(c, sizeof c, o->final_s);
        TRY(tdx_buf_printf(b, "| time (median ± IQR) | %s → %s", a, c));
        double sp = tdx_rep__speedup(o);
        TRY(sp > 0 ? tdx_buf_printf(b, " (%.2f× faster) |\n", sp) : tdx_buf_adds(b, " |\n"));
        tdx_rep__fmt_pct(p1, sizeof p1, o->base_fraction);
        tdx_rep__fmt_pct(p2, sizeof p2, o->final_fraction);
        TRY(tdx_buf_printf(b, "| roofline | %s → %s", p1, p2));
        TRY(o->target_fraction > 0 ? tdx_buf_printf(b, " (target %.0f%%) |\n", 100 * o->target_fraction)
                                   : tdx_buf_adds(b, " |\n"));
    }
    TRY(tdx_buf_printf(b, "| rounds | %zu", o->nrounds));
    if (o->max_rounds > 0)
        TRY(tdx_buf_printf(b, " of at most %d", o->max_rounds));
    TRY(tdx_buf_printf(b, "; %d candidate%s tried, %d kept |\n", o->tried, o->tried == 1 ? "" : "s",
                       o->kept));
    if (o->nrounds) {
        TRY(tdx_buf_adds(b, "| level that decided |"));
        for (size_t i = 0; i < o->nrounds; i++) {
            int lv = o->rounds[i].decided_level;
            TRY(lv >= 0 ? tdx_buf_printf(b, "%s round %d: %d", i ? "," : "", o->rounds[i].round, lv)
                        : tdx_buf_printf(b, "%s round %d: none", i ? "," : "", o->rounds[i].round));
        }
        TRY(tdx_buf_adds(b, " |\n"));
    }
    TRY(tdx_rep__summary_tail(b, TDX_REP_MD, o));
    return tdx_buf_adds(b, "\n");
}

// The ceilings, the chart file and the points table (or why there is none).
static tdx_status roofline(const tdx_rep_opt *o, int chart, tdx_buf *b)
{
    const tdx_rep_roof *r = &o->roof;
    TRY(tdx_buf_adds(b, "## Roofline\n\n"));
    if (r->have_ceilings) {
        TRY(tdx_rep__ceilings_text(b, TDX_REP_MD, r));
        TRY(tdx_buf_adds(b, ".\n\n"));
    }
    if (r->why) {
        TRY(tdx_buf_adds(b, "No roofline chart: "));
        TRY(tdx_rep_md_text(b, r->why));
        return tdx_buf_adds(b, ".\n\n");
    }
    TRY(tdx_rep__roof_sentence(r, b));
    TRY(tdx_buf_adds(b, "\n\n"));
    if (chart)
        TRY(tdx_buf_adds(b, "![roofline: FLOP/s against FLOP/byte, the initial and final kernel under "
                            "the roof](report-roofline.svg)\n\n"));
    return tdx_rep__points_table(b, TDX_REP_MD, o);
}

// One finding as a list item, its evidence fenced.
static tdx_status finding(const tdx_rep_finding *f, int deciding, tdx_buf *b)
{
    TRY(tdx_buf_printf(b, "- **F%d** `%s` level %d", f->id, f->rule ? f->rule : "?", f->level));
    if (f->file) {
        TRY(tdx_buf_adds(b, ", "));
        TRY(tdx_rep_md_code(b, tdx_rep__base(f->file)));
        if (f->line > 0)
            TRY(tdx_buf_printf(b, " line %d", f->line));
    }
    if (f->kernel) {
        TRY(tdx_buf_adds(b, ", kernel "));
        TRY(tdx_rep_md_code(b, f->kernel));
    }
    TRY(tdx_buf_adds(b, deciding ? " **(decided)**: " : ": "));
    TRY(tdx_rep_md_text(b, f->message));
    TRY(tdx_buf_adds(b, "\n"));
    if (f->hypothesis) {
        TRY(tdx_buf_adds(b, "  - why: "));
        TRY(tdx_rep_md_text(b, f->hypothesis));
        TRY(tdx_buf_adds(b, "\n"));
    }
    if (f->family) {
        TRY(tdx_buf_adds(b, "  - rewrite family: "));
        TRY(tdx_rep_md_code(b, f->family));
        TRY(f->confidence >= 0 ? tdx_buf_printf(b, " (confidence %.2f)\n", f->confidence)
                               : tdx_buf_adds(b, "\n"));
    }
    if (f->nfacts) {
        TRY(tdx_buf_adds(b, "  - facts:"));
        for (size_t i = 0; i < f->nfacts; i++) {
            TRY(tdx_buf_adds(b, i ? ", " : " "));
            TRY(tdx_rep_md_text(b, f->facts[i].key));
            TRY(tdx_buf_adds(b, "="));
            TRY(tdx_rep_md_text(b, f->facts[i].value));
        }
        TRY(tdx_buf_adds(b, "\n"));
    }
    if (f->evidence && f->evidence[0]) {
        TRY(tdx_buf_adds(b, "  - evidence:\n\n"));
        /* indent the fenced block into the list item */
        tdx_buf blk;
        tdx_buf_init(&blk, 0);
        tdx_status st = tdx_rep_md_block(&blk, "text", f->evidence);
        const char *s = tdx_buf_str(&blk);
        while (!st && *s) {
            const char *nl = strchr(s, '\n');
            size_t len = nl ? (size_t)(nl - s) : strlen(s);
            st = len ? tdx_buf_printf(b, "    %.*s\n", (int)len, s) : tdx_buf_adds(b, "\n");
            s += len + (nl != NULL);
        }
        tdx_buf_free(&blk);
        TRY(st);
        TRY(tdx_buf_adds(b, "\n"));
    }
    return TDX_OK;
}

// What each level did in the round and what it cost.
static tdx_status levels(const tdx_rep_round *r, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "| level | state | seconds | compiles | GPU runs | LLM tokens | note |\n"
                        "|---|---|---|---|---|---|---|\n"));
    for (int lv = 0; lv < 4; lv++) {
        const tdx_rep_cost *c = &r->levels[lv];
        if (!c->state)
            continue;
        TRY(tdx_buf_printf(b, "| %d %s | ", lv, tdx_rep__level_name(lv)));
        TRY(tdx_rep_md_text(b, c->state));
        TRY(tdx_buf_printf(b, " | %.3g | %ld | %ld | %ld | ", c->seconds, c->compiles, c->gpu_runs,
                           c->tokens));
        TRY(tdx_rep_md_text(b, c->why ? c->why : ""));
        TRY(tdx_buf_adds(b, " |\n"));
    }
    return tdx_buf_adds(b, "\n");
}

// The round's candidates: verdict, timing against the best (or the round's best, #N), reason.
static tdx_status cands(const tdx_rep_round *r, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "| # | family | origin | change | cites | verdict | candidate | best so far | "
                        "speedup | reason |\n|---|---|---|---|---|---|---|---|---|---|\n"));
    for (size_t i = 0; i < r->ncands; i++) {
        const tdx_rep_cand *c = &r->cands[i];
        TRY(tdx_buf_printf(b, "| %d | ", c->index));
        TRY(tdx_rep_md_text(b, c->family ? c->family : ""));
        TRY(tdx_buf_adds(b, " | "));
        TRY(tdx_rep_md_text(b, c->origin ? c->origin : ""));
        TRY(tdx_buf_adds(b, " | "));
        TRY(tdx_rep_md_text(b, c->summary ? c->summary : ""));
        TRY(tdx_buf_adds(b, " |"));
        for (int k = 0; k < c->ncites; k++)
            TRY(tdx_buf_printf(b, "%sF%d", k ? ", " : " ", c->cites[k]));
        TRY(tdx_buf_printf(b, " | %s%s%s | ", c->kept ? "**" : "", tdx_rep__verdict_word(c),
                           c->kept ? "**" : ""));
        char x[64], y[64];
        if (c->have_timing) {
            tdx_rep__fmt_mi(x, sizeof x, c->cand_median_s, c->cand_iqr_s);
            tdx_rep__fmt_mi(y, sizeof y, c->base_median_s, c->base_iqr_s);
            TRY(tdx_buf_printf(b, "%s | %s", x, y));
            /* a stack or a follow-up is timed against the round's best */
            TRY(c->against > 0 ? tdx_buf_printf(b, " (#%d) | ", c->against) : tdx_buf_adds(b, " | "));
            TRY(c->cand_median_s > 0 ? tdx_buf_printf(b, "%.2f× | ", c->base_median_s / c->cand_median_s)
                                     : tdx_buf_adds(b, "– | "));
        } else {
            TRY(tdx_buf_adds(b, "– | – | – | "));
        }
        TRY(tdx_rep_md_text(b, c->reason ? c->reason : ""));
        TRY(tdx_buf_adds(b, " |\n"));
    }
    return tdx_buf_adds(b, "\n");
}

// One round: the decision, findings, levels, candidates, the kept diff, cost.
static tdx_status round_md(const tdx_rep_round *r, tdx_buf *b)
{
    TRY(tdx_buf_printf(b, "## Round %d\n\n", r->round));
    const tdx_rep_finding *d = r->deciding_finding ? tdx_rep__finding(r, r->deciding_finding) : NULL;
    if (r->decided_level >= 0) {
        TRY(tdx_buf_printf(b, "Decided at level %d (%s)", r->decided_level,
                           tdx_rep__level_name(r->decided_level)));
        if (d) {
            TRY(tdx_buf_printf(b, " by F%d `%s`", d->id, d->rule ? d->rule : "?"));
            if (d->family) {
                TRY(tdx_buf_adds(b, " → rewrite family "));
                TRY(tdx_rep_md_code(b, d->family));
            }
        }
        TRY(tdx_buf_adds(b, ".\n\n"));
    } else if (r->have_diagnosis) {
        TRY(tdx_buf_adds(b, "No finding decided: none named one dominant cause with a rewrite for it.\n\n"));
    }
    if (r->have_diagnosis) {
        TRY(tdx_buf_printf(b, "### Findings (%zu)\n\n", r->nfindings));
        for (size_t i = 0; i < r->nfindings; i++)
            TRY(finding(&r->findings[i], r->findings[i].id == r->deciding_finding, b));
        if (r->nfindings)
            TRY(tdx_buf_adds(b, "\n"));
        TRY(tdx_buf_adds(b, "### Levels\n\n"));
        TRY(levels(r, b));
    }
    TRY(tdx_buf_printf(b, "### Candidates (%zu)\n\n", r->ncands));
    if (r->ncands)
        TRY(cands(r, b));
    for (size_t i = 0; i < r->ncands; i++) {
        const tdx_rep_cand *c = &r->cands[i];
        if (!c->kept)
            continue;
        char t[32], p[16];
        tdx_rep_fmt_time(t, sizeof t, r->keep_median_s);
        tdx_rep__fmt_pct(p, sizeof p, r->keep_fraction);
        TRY(tdx_buf_printf(b, "### Kept: candidate %d (", c->index));
        TRY(tdx_rep_md_text(b, c->family ? c->family : "?"));
        TRY(tdx_buf_printf(b, ")\n\n%s, %.2f× the initial kernel, %s of the roofline.\n\n", t,
                           r->keep_speedup, p));
        if (c->diff && c->diff[0])
            TRY(tdx_rep_md_block(b, "diff", c->diff));
        TRY(tdx_buf_adds(b, "\n"));
    }
    tdx_rep_cost cost;
    tdx_rep__round_cost(r, &cost);
    TRY(tdx_buf_adds(b, "Cost of the round's diagnosis: "));
    TRY(tdx_rep__cost_text(b, &cost));
    TRY(tdx_buf_adds(b, r->ended ? ".\n\n" : ". The round did not end (interrupted).\n\n"));
    return TDX_OK;
}

// The report of an optimize run.
static tdx_status optimize_md(const tdx_rep_model *m, tdx_buf *b)
{
    const tdx_rep_opt *o = &m->opt;
    TRY(tdx_buf_adds(b, "# tritondx report: "));
    TRY(tdx_rep_md_text(b, o->task ? tdx_rep__base(o->task) : "optimize run"));
    TRY(tdx_buf_adds(b, "\n\nOptimize run of "));
    TRY(tdx_rep_md_code(b, o->task ? o->task : "?"));
    if (o->task_hash) {
        TRY(tdx_buf_adds(b, " (source hash "));
        TRY(tdx_rep_md_code(b, o->task_hash));
        TRY(tdx_buf_adds(b, ")"));
    }
    TRY(tdx_buf_adds(b, ".\n\n"));
    TRY(notes(m, b));
    TRY(summary(o, b));
    TRY(roofline(o, m->chart_file, b));
    for (size_t i = 0; i < o->nrounds; i++)
        TRY(round_md(&o->rounds[i], b));
    return TDX_OK;
}

/* ---- bench runs ------------------------------------------------------------ */

// One row per results file: how deep diagnosis went, and what that bought.
static tdx_status ablation(const tdx_rep_bench *bn, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "## Ablation over the deepest diagnosis level\n\n"));
    return tdx_rep__ablation_table(b, TDX_REP_MD, bn);
}

// The summary the paper reports, and what it lacks.
static tdx_status summary_table(const tdx_bench_summary *s, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "| | |\n|---|---|\n"));
    TRY(tdx_rep__bench_rows(b, TDX_REP_MD, s));
    return tdx_buf_adds(b, "\n");
}

// The report of a bench run.
static tdx_status bench_md(const tdx_rep_model *m, tdx_buf *b)
{
    const tdx_rep_bench *bn = &m->bench;
    const tdx_rep_results *s = &bn->sets[bn->main];
    TRY(tdx_buf_adds(b, "# tritondx report: bench\n\nBench run "));
    TRY(tdx_rep_md_code(b, m->dir));
    if (strcmp(s->name, ".") != 0) {
        TRY(tdx_buf_adds(b, ", results of "));
        TRY(tdx_rep_md_code(b, s->name));
    }
    if (s->device) {
        TRY(tdx_buf_adds(b, " on "));
        TRY(tdx_rep_md_code(b, s->device));
    }
    if (s->max_level >= 0)
        TRY(tdx_buf_printf(b, ", diagnosis up to level %d", s->max_level));
    TRY(tdx_buf_adds(b, ".\n\n"));
    TRY(notes(m, b));
    TRY(tdx_buf_adds(b, "## Results\n\n"));
    if (m->chart_file)
        TRY(tdx_buf_adds(b, "![speedup per task over its initial kernel, log scale](report-speedups.svg)\n\n"));
    TRY(tdx_rep__results_table(b, TDX_REP_MD, s, m->task_links));
    TRY(tdx_buf_adds(b, "## Summary\n\n"));
    TRY(summary_table(&s->sum, b));
    if (bn->nsets > 1)
        TRY(ablation(bn, b));
    return TDX_OK;
}

// The report of either kind of run.
tdx_status tdx_rep_run_md(const tdx_rep_model *m, tdx_buf *out)
{
    return m->kind == TDX_REP_OPTIMIZE ? optimize_md(m, out) : bench_md(m, out);
}
