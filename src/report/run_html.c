/* The run report as one self-contained HTML page: inline CSS and SVG, no
 * scripts, no fonts or other fetches (a Content-Security-Policy that
 * allows nothing else says so to the browser too). Every string from the
 * run goes through tdx_rep_html_esc. */
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "report/run_int.h"
#include "report/svg.h"

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d232b;"
    "max-width:1100px;margin:24px auto;padding:0 18px;background:#fff}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d7dde4;"
    "padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}\n"
    "code,pre{font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n"
    "pre{background:#f6f8fa;border:1px solid #e1e6eb;border-radius:4px;padding:8px 10px;overflow-x:auto;"
    "margin:6px 0}\n"
    "table{border-collapse:collapse;margin:6px 0 10px}th,td{border:1px solid #d7dde4;padding:3px 8px;"
    "text-align:left;vertical-align:top}th{background:#f1f4f7}td.num{text-align:right;white-space:nowrap}\n"
    ".sub{color:#5b6673}.note{background:#fff6dd;border:1px solid #f0d68a;border-radius:4px;padding:6px 10px;"
    "margin:6px 0}\n"
    ".finding{border:1px solid #d7dde4;border-left:4px solid #8a96a3;border-radius:4px;padding:6px 10px;"
    "margin:8px 0}.finding.decided{border-left-color:#1f6feb;background:#f5f9ff}\n"
    ".finding .head{font-weight:600}.finding dl{margin:4px 0}.finding dt{float:left;clear:left;width:110px;"
    "color:#5b6673}.finding dd{margin-left:120px}\n"
    ".lv{display:inline-block;border-radius:3px;padding:0 6px;font-size:12px;color:#fff;background:#6e7781}"
    ".lv0{background:#6e7781}.lv1{background:#bf8700}.lv2{background:#8250df}.lv3{background:#1f6feb}\n"
    "tr.kept td{background:#eaf7ee}tr.rejected td,tr.duplicate td{color:#6e7781}\n"
    ".v-kept{color:#116329;font-weight:600}.v-faster{color:#116329}.v-slower{color:#9a6700}"
    ".v-rejected{color:#a40e26}.v-duplicate{color:#6e7781}\n"
    "pre.diff .add{background:#dafbe1;color:#116329;display:inline-block;min-width:100%}pre.diff .del{background:#ffebe9;"
    "color:#a40e26;display:inline-block;min-width:100%}pre.diff .hunk{color:#8250df;display:inline-block;min-width:100%}pre.diff .meta{color:#5b6673;"
    "font-weight:600;display:inline-block;min-width:100%}\n"
    "pre.evidence .before{background:#fff1f0;display:inline-block;min-width:100%}pre.evidence .after{background:#effaf1;"
    "display:inline-block;min-width:100%}pre.evidence .sec{font-weight:600;display:inline-block;min-width:100%}\n"
    /* the charts carry their own styles (they are also written as files) */
    ".chart{display:block;margin:8px 0;max-width:100%;height:auto}\n"
    "details.cand-diff{margin:4px 0}details.cand-diff summary{cursor:pointer;color:#3d4753}\n";

// Text from the run, escaped for the page.
static tdx_status esc(tdx_buf *b, const char *s) { return tdx_rep_html_esc(b, s); }

// The document head: charset, the policy that allows no fetch, the styles.
static tdx_status head(tdx_buf *b, const char *title)
{
    TRY(tdx_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                        "style-src 'unsafe-inline'\">\n"
                        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                        "<title>tritondx report: "));
    TRY(esc(b, title));
    TRY(tdx_buf_printf(b, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", css));
    return TDX_OK;
}

// What is missing or cut short, one box each.
static tdx_status notes(const tdx_rep_model *m, tdx_buf *b)
{
    for (size_t i = 0; i < m->nnotes; i++) {
        TRY(tdx_buf_adds(b, "<p class=\"note\"><strong>Note:</strong> "));
        TRY(esc(b, m->notes[i]));
        TRY(tdx_buf_adds(b, "</p>\n"));
    }
    return TDX_OK;
}

/* Text as a <pre>, each line classed by how it starts (diff) or by the
 * section it is in (counterfactual evidence: as launched / with ...). */
static tdx_status pre_lines(tdx_buf *b, const char *cls, const char *s, int diff)
{
    TRY(tdx_buf_printf(b, "<pre class=\"%s\">", cls));
    const char *sec = NULL;
    while (s && *s) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *c = NULL;
        if (diff) {
            if (len >= 3 && (strncmp(s, "+++", 3) == 0 || strncmp(s, "---", 3) == 0))
                c = "meta";
            else if (len >= 2 && strncmp(s, "@@", 2) == 0)
                c = "hunk";
            else if (s[0] == '+')
                c = "add";
            else if (s[0] == '-')
                c = "del";
        } else if (len > 0 && s[0] != ' ' && s[len - 1] == ':') {
            /* a section header of a counterfactual: what the compiler built as
             * launched, and with the one change */
            sec = strncmp(s, "as launched", 11) == 0 ? "before" : strncmp(s, "with ", 5) == 0 ? "after" : NULL;
            c = "sec";
        } else if (sec && len > 0 && s[0] == ' ') {
            c = sec;
        } else if (len > 0 && s[0] != ' ') {
            sec = NULL;
        }
        if (c)
            TRY(tdx_buf_printf(b, "<span class=\"%s\">", c));
        TRY(tdx_rep_html_escn(b, s, len));
        TRY(tdx_buf_adds(b, c ? "</span>\n" : "\n"));
        s += len + (nl != NULL);
    }
    return tdx_buf_adds(b, "</pre>\n");
}

// The run at a glance: time, roofline, rounds, deciding levels, stop, cost.
static tdx_status summary(const tdx_rep_opt *o, tdx_buf *b)
{
    char a[64], c[64], p1[16], p2[16];
    TRY(tdx_buf_adds(b, "<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"kv\">\n"));
    if (o->have_baseline) {
        tdx_rep__fmt_mi(a, sizeof a, o->base_median_s, o->base_iqr_s);
        tdx_rep_fmt_time(c, sizeof c, o->final_s);
        TRY(tdx_buf_printf(b, "<tr><th>time (median ± IQR)</th><td>%s → %s", a, c));
        double sp = tdx_rep__speedup(o);
        if (sp > 0)
            TRY(tdx_buf_printf(b, " (<strong>%.2f× faster</strong>)", sp));
        tdx_rep__fmt_pct(p1, sizeof p1, o->base_fraction);
        tdx_rep__fmt_pct(p2, sizeof p2, o->final_fraction);
        TRY(tdx_buf_printf(b, "</td></tr>\n<tr><th>roofline</th><td>%s → %s", p1, p2));
        if (o->target_fraction > 0)
            TRY(tdx_buf_printf(b, " (target %.0f%%)", 100 * o->target_fraction));
        TRY(tdx_buf_adds(b, "</td></tr>\n"));
    }
    TRY(tdx_buf_printf(b, "<tr><th>rounds</th><td>%zu", o->nrounds));
    if (o->max_rounds > 0)
        TRY(tdx_buf_printf(b, " of at most %d", o->max_rounds));
    TRY(tdx_buf_printf(b, "; %d candidate%s tried, %d kept</td></tr>\n", o->tried,
                       o->tried == 1 ? "" : "s", o->kept));
    if (o->nrounds) {
        TRY(tdx_buf_adds(b, "<tr><th>level that decided</th><td>"));
        for (size_t i = 0; i < o->nrounds; i++) {
            int lv = o->rounds[i].decided_level;
            TRY(tdx_buf_printf(b, "%s<a href=\"#round-%d\">round %d</a>: ", i ? ", " : "", o->rounds[i].round,
                               o->rounds[i].round));
            TRY(lv >= 0 ? tdx_buf_printf(b, "<span class=\"lv lv%d\">level %d</span>", lv, lv)
                        : tdx_buf_adds(b, "none"));
        }
        TRY(tdx_buf_adds(b, "</td></tr>\n"));
    }
    TRY(tdx_rep__summary_tail(b, TDX_REP_HTML, o));
    return tdx_buf_adds(b, "</table>\n</section>\n");
}

// The progress chart, when the journal recorded fractions.
static tdx_status progress(const tdx_rep_opt *o, tdx_buf *b)
{
    tdx_buf svg;
    tdx_buf_init(&svg, 0);
    tdx_status st = tdx_rep_svg_progress(o, &svg);
    if (!st)
        st = tdx_buf_printf(b, "<section id=\"progress-section\">\n<h2>Progress</h2>\n%s</section>\n",
                            tdx_buf_str(&svg));
    else if (st == TDX_ERR_ARG)
        st = TDX_OK; /* no fractions recorded: nothing to draw */
    tdx_buf_free(&svg);
    return st;
}

// The ceilings, the roofline chart and its points (or why there is none).
static tdx_status roofline(const tdx_rep_opt *o, tdx_buf *b)
{
    const tdx_rep_roof *r = &o->roof;
    TRY(tdx_buf_adds(b, "<section id=\"roofline-section\">\n<h2>Roofline</h2>\n"));
    if (r->have_ceilings) {
        TRY(tdx_buf_adds(b, "<p class=\"sub\">"));
        TRY(tdx_rep__ceilings_text(b, TDX_REP_HTML, r));
        TRY(tdx_buf_adds(b, ".</p>\n"));
    }
    if (r->why) {
        TRY(tdx_buf_adds(b, "<p>No roofline chart: "));
        TRY(esc(b, r->why));
        return tdx_buf_adds(b, ".</p>\n</section>\n");
    }
    TRY(tdx_buf_adds(b, "<p>"));
    TRY(tdx_rep__roof_sentence(r, b));
    TRY(tdx_buf_adds(b, "</p>\n"));
    /* a chart that cannot be drawn (numbers off any log scale) is left out, not fatal */
    tdx_buf svg;
    tdx_buf_init(&svg, 0);
    tdx_status st = tdx_rep_svg_roofline(o, &svg);
    if (!st)
        st = tdx_buf_adds(b, tdx_buf_str(&svg));
    else if (st == TDX_ERR_ARG)
        st = tdx_buf_adds(b, "<p>No roofline chart: the numbers do not fit a log scale.</p>\n");
    tdx_buf_free(&svg);
    TRY(st);
    TRY(tdx_rep__points_table(b, TDX_REP_HTML, o));
    return tdx_buf_adds(b, "</section>\n");
}

// One finding: rule, level, place, message, why, family, facts, evidence.
static tdx_status finding(const tdx_rep_finding *f, int deciding, tdx_buf *b)
{
    int lv = f->level >= 0 && f->level <= 3 ? f->level : 0;
    TRY(tdx_buf_printf(b, "<div class=\"finding%s\" id=\"", deciding ? " decided" : ""));
    TRY(tdx_buf_printf(b, "f%d\">\n<div class=\"head\">F%d <code>", f->id, f->id));
    TRY(esc(b, f->rule ? f->rule : "?"));
    TRY(tdx_buf_printf(b, "</code> <span class=\"lv lv%d\">level %d · %s</span>", lv, f->level,
                       tdx_rep__level_name(f->level)));
    if (f->file) {
        TRY(tdx_buf_adds(b, " <code>"));
        TRY(esc(b, tdx_rep__base(f->file)));
        if (f->line > 0)
            TRY(tdx_buf_printf(b, ":%d", f->line));
        TRY(tdx_buf_adds(b, "</code>"));
    }
    if (f->kernel) {
        TRY(tdx_buf_adds(b, " kernel <code>"));
        TRY(esc(b, f->kernel));
        TRY(tdx_buf_adds(b, "</code>"));
    }
    if (deciding)
        TRY(tdx_buf_adds(b, " — <strong>decided</strong>"));
    TRY(tdx_buf_adds(b, "</div>\n<div class=\"msg\">"));
    TRY(esc(b, f->message));
    TRY(tdx_buf_adds(b, "</div>\n<dl>\n"));
    if (f->hypothesis) {
        TRY(tdx_buf_adds(b, "<dt>why</dt><dd>"));
        TRY(esc(b, f->hypothesis));
        TRY(tdx_buf_adds(b, "</dd>\n"));
    }
    if (f->family) {
        TRY(tdx_buf_adds(b, "<dt>rewrite family</dt><dd><code>"));
        TRY(esc(b, f->family));
        TRY(tdx_buf_adds(b, "</code>"));
        if (f->confidence >= 0)
            TRY(tdx_buf_printf(b, " (confidence %.2f)", f->confidence));
        TRY(tdx_buf_adds(b, "</dd>\n"));
    }
    if (f->nfacts) {
        TRY(tdx_buf_adds(b, "<dt>facts</dt><dd>"));
        for (size_t i = 0; i < f->nfacts; i++) {
            TRY(tdx_buf_adds(b, i ? ", <code>" : "<code>"));
            TRY(esc(b, f->facts[i].key));
            TRY(tdx_buf_adds(b, "=</code>"));
            TRY(esc(b, f->facts[i].value));
        }
        TRY(tdx_buf_adds(b, "</dd>\n"));
    }
    TRY(tdx_buf_adds(b, "</dl>\n"));
    if (f->evidence && f->evidence[0])
        TRY(pre_lines(b, "evidence", f->evidence, 0));
    return tdx_buf_adds(b, "</div>\n");
}

// What each level did in the round and what it cost.
static tdx_status levels(const tdx_rep_round *r, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "<table class=\"levels\">\n<tr><th>level</th><th>state</th><th>seconds</th>"
                        "<th>compiles</th><th>GPU runs</th><th>LLM tokens</th><th>note</th></tr>\n"));
    for (int lv = 0; lv < 4; lv++) {
        const tdx_rep_cost *c = &r->levels[lv];
        if (!c->state)
            continue;
        TRY(tdx_buf_printf(b, "<tr%s><td>%d %s</td><td>", lv == r->decided_level ? " class=\"kept\"" : "",
                           lv, tdx_rep__level_name(lv)));
        TRY(esc(b, c->state));
        TRY(tdx_buf_printf(b, "</td><td class=\"num\">%.3g</td><td class=\"num\">%ld</td><td class=\"num\">%ld"
                              "</td><td class=\"num\">%ld</td><td>",
                           c->seconds, c->compiles, c->gpu_runs, c->tokens));
        TRY(esc(b, c->why ? c->why : ""));
        TRY(tdx_buf_adds(b, "</td></tr>\n"));
    }
    return tdx_buf_adds(b, "</table>\n");
}

// The round's candidates: verdict, timing against the best (or the round's best, #N), reason.
static tdx_status cands(const tdx_rep_round *r, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "<table class=\"cands\">\n<tr><th>#</th><th>family</th><th>origin</th><th>change</th>"
                        "<th>cites</th><th>verdict</th><th>candidate</th><th>best so far</th><th>speedup</th>"
                        "<th>reason</th></tr>\n"));
    for (size_t i = 0; i < r->ncands; i++) {
        const tdx_rep_cand *c = &r->cands[i];
        const char *v = tdx_rep__verdict_word(c);
        char vc[24];
        snprintf(vc, sizeof vc, "%s", v);
        for (char *p = vc; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || *p == '-'))
                *p = '-';
        TRY(tdx_buf_printf(b, "<tr class=\"%s\" id=\"r%d-c%d\"><td class=\"num\">%d</td><td>", vc, r->round,
                           c->index, c->index));
        TRY(esc(b, c->family));
        TRY(tdx_buf_adds(b, "</td><td>"));
        TRY(esc(b, c->origin));
        TRY(tdx_buf_adds(b, "</td><td>"));
        TRY(esc(b, c->summary));
        TRY(tdx_buf_adds(b, "</td><td>"));
        for (int k = 0; k < c->ncites; k++)
            TRY(tdx_buf_printf(b, "%s<a href=\"#f%d\">F%d</a>", k ? ", " : "", c->cites[k], c->cites[k]));
        TRY(tdx_buf_printf(b, "</td><td class=\"v-%s\">", vc));
        TRY(esc(b, v));
        TRY(tdx_buf_adds(b, "</td>"));
        if (c->have_timing) {
            char x[64], y[64];
            tdx_rep__fmt_mi(x, sizeof x, c->cand_median_s, c->cand_iqr_s);
            tdx_rep__fmt_mi(y, sizeof y, c->base_median_s, c->base_iqr_s);
            TRY(tdx_buf_printf(b, "<td class=\"num\">%s</td><td class=\"num\">%s", x, y));
            /* a stack or a follow-up is timed against the round's best */
            TRY(c->against > 0 ? tdx_buf_printf(b, " (#%d)</td>", c->against) : tdx_buf_adds(b, "</td>"));
            if (c->cand_median_s > 0)
                TRY(tdx_buf_printf(b, "<td class=\"num\">%.2f×</td>", c->base_median_s / c->cand_median_s));
            else
                TRY(tdx_buf_adds(b, "<td class=\"num\">–</td>"));
        } else {
            TRY(tdx_buf_adds(b, "<td class=\"num\">–</td><td class=\"num\">–</td><td class=\"num\">–</td>"));
        }
        TRY(tdx_buf_adds(b, "<td class=\"reason\">"));
        TRY(esc(b, c->reason ? c->reason : ""));
        TRY(tdx_buf_adds(b, "</td></tr>\n"));
    }
    return tdx_buf_adds(b, "</table>\n");
}

// One round: the decision, findings, levels, candidates, the kept diff, cost.
static tdx_status round_html(const tdx_rep_round *r, tdx_buf *b)
{
    TRY(tdx_buf_printf(b, "<section class=\"round\" id=\"round-%d\">\n<h2>Round %d</h2>\n", r->round, r->round));
    const tdx_rep_finding *d = r->deciding_finding ? tdx_rep__finding(r, r->deciding_finding) : NULL;
    if (r->decided_level >= 0) {
        TRY(tdx_buf_printf(b, "<p class=\"decided\">Decided at <span class=\"lv lv%d\">level %d · %s</span>",
                           r->decided_level, r->decided_level, tdx_rep__level_name(r->decided_level)));
        if (d) {
            TRY(tdx_buf_printf(b, " by <a href=\"#f%d\">F%d</a> <code>", d->id, d->id));
            TRY(esc(b, d->rule ? d->rule : "?"));
            TRY(tdx_buf_adds(b, "</code>"));
            if (d->family) {
                TRY(tdx_buf_adds(b, " → rewrite family <code>"));
                TRY(esc(b, d->family));
                TRY(tdx_buf_adds(b, "</code>"));
            }
        }
        TRY(tdx_buf_adds(b, ".</p>\n"));
    } else if (r->have_diagnosis) {
        TRY(tdx_buf_adds(b, "<p class=\"decided\">No finding decided: none named one dominant cause with a "
                            "rewrite for it.</p>\n"));
    }
    if (r->have_diagnosis) {
        TRY(tdx_buf_printf(b, "<h3>Findings (%zu)</h3>\n", r->nfindings));
        for (size_t i = 0; i < r->nfindings; i++)
            TRY(finding(&r->findings[i], r->findings[i].id == r->deciding_finding, b));
        TRY(tdx_buf_adds(b, "<h3>Levels</h3>\n"));
        TRY(levels(r, b));
    }
    TRY(tdx_buf_printf(b, "<h3>Candidates (%zu)</h3>\n", r->ncands));
    if (r->ncands)
        TRY(cands(r, b));
    for (size_t i = 0; i < r->ncands; i++) {
        const tdx_rep_cand *c = &r->cands[i];
        if (!c->kept)
            continue;
        char t[32], p[16];
        tdx_rep_fmt_time(t, sizeof t, r->keep_median_s);
        tdx_rep__fmt_pct(p, sizeof p, r->keep_fraction);
        TRY(tdx_buf_printf(b, "<h3>Kept: candidate %d (", c->index));
        TRY(esc(b, c->family ? c->family : "?"));
        TRY(tdx_buf_printf(b, ")</h3>\n<p>%s, %.2f× the initial kernel, %s of the roofline.</p>\n", t,
                           r->keep_speedup, p));
        if (c->diff && c->diff[0])
            TRY(pre_lines(b, "diff", c->diff, 1));
    }
    /* what the others changed, folded away (no script: <details>) */
    for (size_t i = 0; i < r->ncands; i++) {
        const tdx_rep_cand *c = &r->cands[i];
        if (c->kept || !c->diff || !c->diff[0])
            continue;
        TRY(tdx_buf_printf(b, "<details class=\"cand-diff\"><summary>candidate %d (", c->index));
        TRY(esc(b, c->family ? c->family : "?"));
        TRY(tdx_buf_adds(b, ", "));
        TRY(esc(b, tdx_rep__verdict_word(c)));
        TRY(tdx_buf_adds(b, "): "));
        TRY(esc(b, c->summary ? c->summary : ""));
        TRY(tdx_buf_adds(b, "</summary>\n"));
        TRY(pre_lines(b, "diff", c->diff, 1));
        TRY(tdx_buf_adds(b, "</details>\n"));
    }
    tdx_rep_cost cost;
    tdx_rep__round_cost(r, &cost);
    TRY(tdx_buf_adds(b, "<p class=\"sub\">Cost of the round's diagnosis: "));
    TRY(tdx_rep__cost_text(b, &cost));
    TRY(tdx_buf_adds(b, r->ended ? ".</p>\n</section>\n" : ". The round did not end (interrupted).</p>\n</section>\n"));
    return TDX_OK;
}

// The page of an optimize run.
static tdx_status optimize_html(const tdx_rep_model *m, tdx_buf *b)
{
    const tdx_rep_opt *o = &m->opt;
    const char *name = o->task ? tdx_rep__base(o->task) : "optimize run";
    TRY(head(b, name));
    TRY(tdx_buf_adds(b, "<header>\n<h1>tritondx report: "));
    TRY(esc(b, name));
    TRY(tdx_buf_adds(b, "</h1>\n<p class=\"sub\">Optimize run of <code>"));
    TRY(esc(b, o->task ? o->task : "?"));
    TRY(tdx_buf_adds(b, "</code>"));
    if (o->task_hash) {
        TRY(tdx_buf_adds(b, " (source hash <code>"));
        TRY(esc(b, o->task_hash));
        TRY(tdx_buf_adds(b, "</code>)"));
    }
    TRY(tdx_buf_adds(b, ".</p>\n</header>\n"));
    TRY(notes(m, b));
    TRY(summary(o, b));
    TRY(roofline(o, b));
    TRY(progress(o, b));
    for (size_t i = 0; i < o->nrounds; i++)
        TRY(round_html(&o->rounds[i], b));
    return tdx_buf_adds(b, "</body>\n</html>\n");
}

/* ---- bench runs ------------------------------------------------------------ */

// The summary the paper reports, and what it lacks.
static tdx_status summary_table(const tdx_bench_summary *s, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "<table id=\"summary-table\" class=\"kv\">\n"));
    TRY(tdx_rep__bench_rows(b, TDX_REP_HTML, s));
    return tdx_buf_adds(b, "</table>\n");
}

// One row per results file: how deep diagnosis went, and what that bought.
static tdx_status ablation(const tdx_rep_bench *bn, tdx_buf *b)
{
    TRY(tdx_buf_adds(b, "<section id=\"ablation\">\n<h2>Ablation over the deepest diagnosis level</h2>\n"));
    TRY(tdx_rep__ablation_table(b, TDX_REP_HTML, bn));
    return tdx_buf_adds(b, "</section>\n");
}

// The page of a bench run.
static tdx_status bench_html(const tdx_rep_model *m, tdx_buf *b)
{
    const tdx_rep_bench *bn = &m->bench;
    const tdx_rep_results *s = &bn->sets[bn->main];
    TRY(head(b, "bench"));
    TRY(tdx_buf_adds(b, "<header>\n<h1>tritondx report: bench</h1>\n<p class=\"sub\">Bench run <code>"));
    TRY(esc(b, m->dir));
    TRY(tdx_buf_adds(b, "</code>"));
    if (strcmp(s->name, ".") != 0) {
        TRY(tdx_buf_adds(b, ", results of <code>"));
        TRY(esc(b, s->name));
        TRY(tdx_buf_adds(b, "</code>"));
    }
    if (s->device) {
        TRY(tdx_buf_adds(b, " on <code>"));
        TRY(esc(b, s->device));
        TRY(tdx_buf_adds(b, "</code>"));
    }
    if (s->max_level >= 0)
        TRY(tdx_buf_printf(b, ", diagnosis up to level %d", s->max_level));
    TRY(tdx_buf_adds(b, ".</p>\n</header>\n"));
    TRY(notes(m, b));
    TRY(tdx_buf_adds(b, "<section id=\"speedup-section\">\n<h2>Speedup per task</h2>\n"));
    tdx_buf svg;
    tdx_buf_init(&svg, 0);
    tdx_status st = tdx_rep_svg_speedups(s, &svg);
    if (!st)
        st = tdx_buf_adds(b, tdx_buf_str(&svg));
    else if (st == TDX_ERR_ARG)
        st = tdx_buf_adds(b, "<p>No chart: the speedups do not fit a log scale.</p>\n");
    tdx_buf_free(&svg);
    TRY(st);
    TRY(tdx_buf_adds(b, "</section>\n<section id=\"results-section\">\n<h2>Results</h2>\n"));
    TRY(tdx_rep__results_table(b, TDX_REP_HTML, s, m->task_links));
    TRY(tdx_buf_adds(b, "</section>\n<section id=\"summary\">\n<h2>Summary</h2>\n"));
    TRY(summary_table(&s->sum, b));
    TRY(tdx_buf_adds(b, "</section>\n"));
    if (bn->nsets > 1)
        TRY(ablation(bn, b));
    return tdx_buf_adds(b, "</body>\n</html>\n");
}

// The page of either kind of run.
tdx_status tdx_rep_run_html(const tdx_rep_model *m, tdx_buf *out)
{
    return m->kind == TDX_REP_OPTIMIZE ? optimize_html(m, out) : bench_html(m, out);
}
