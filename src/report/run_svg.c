/* The SVG charts of the run reports, drawn here (no plotting library): the
 * roofline of an optimize run and the speedups of a bench run. Both use
 * decade-aligned log axes; every label from the run is escaped. */
#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdio.h>
#include <string.h>

#include "report/run_int.h"
#include "report/svg.h"

/* The charts' own styles, so that an SVG also stands alone as a file. */
static const char chart_css[] =
    "<style>.bg{fill:#fff}.grid{stroke:#e6eaee}.frame{fill:none;stroke:#8a96a3}"
    "text{font:11px system-ui,-apple-system,'Segoe UI',sans-serif;fill:#3d4753}"
    ".axis{font-size:12px;fill:#1d232b}.roof{fill:none;stroke:#1d232b;stroke-width:2.5}"
    ".ceil-other{stroke:#8a96a3;stroke-dasharray:4 3}.path{stroke:#1f6feb;stroke-dasharray:3 3}"
    ".pt-initial{fill:#cf222e}.pt-final{fill:#1a7f37}.pt-kept{fill:#1f6feb}.pt-label{font-weight:600}"
    ".bar.up{fill:#2da44e}.bar.down{fill:#cf222e}.bar.flat{fill:#8a96a3}.one{stroke:#1d232b;"
    "stroke-width:1.5}.bar-missing{fill:#6e7781;font-style:italic}</style>\n";

enum { RW = 760, RH = 440, RL = 64, RR = 56, RT = 18, RB = 56 };

// The smaller and the larger of two numbers.
static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* Grid lines and tick labels of a log axis (vertical lines for x). */
static tdx_status grid(tdx_buf *b, const tdx_rep_logscale *s, int is_x, double o0, double o1,
                       const char *unit)
{
    double ticks[12];
    size_t n = tdx_rep_log_ticks(s->lo, s->hi, ticks, 8);
    for (size_t i = 0; i < n; i++) {
        double p = tdx_rep_log_map(s, ticks[i]);
        char t[32];
        tdx_rep_fmt_tick(t, sizeof t, ticks[i]);
        if (is_x)
            TRY(tdx_buf_printf(b,
                               "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                               "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                               p, o0, p, o1, p, o0 + 16, t));
        else
            TRY(tdx_buf_printf(b,
                               "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                               "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s%s</text>\n",
                               o0, p, o1, p, o0 - 6, p + 4, t, unit));
    }
    return TDX_OK;
}

// The roofline chart of an optimize run.
tdx_status tdx_rep_svg_roofline(const tdx_rep_opt *o, tdx_buf *b)
{
    const tdx_rep_roof *r = &o->roof;
    if (r->why || !(r->bytes > 0) || !(r->flops > 0))
        return TDX_ERR_ARG;
    const char *pname;
    double peak = tdx_rep__peak(r, &pname);
    double in = r->flops / r->bytes;
    tdx_rep_point pts[64];
    size_t np = tdx_rep__points(o, pts, 64);
    if (np == 0)
        return TDX_ERR_ARG;
    /* x: the kernel's intensity and the ridge point, with a decade either side */
    double ridge = peak > 0 ? peak / r->copy_bw : in;
    tdx_rep_logscale xs = {0, 0, RL, RW - RR}, ys = {0, 0, RH - RB, RT};
    if (tdx_rep_log_range(dmin(in, ridge) / 10, dmax(in, ridge) * 10, &xs.lo, &xs.hi))
        return TDX_ERR_ARG;
    /* y: the slowest point up to the highest roof */
    double ymin = r->flops / pts[0].seconds, ymax = dmax(peak, tdx_rep__roof_at(r, in));
    for (size_t i = 0; i < np; i++)
        ymin = dmin(ymin, r->flops / pts[i].seconds);
    for (int i = 0; i < 4; i++)
        ymax = dmax(ymax, r->mm[i]);
    if (tdx_rep_log_range(ymin / 2, ymax, &ys.lo, &ys.hi))
        return TDX_ERR_ARG;
    double x0 = xs.px0, x1 = xs.px1, y0 = ys.px0, y1 = ys.px1;
    TRY(tdx_buf_printf(b,
                       "<svg id=\"roofline\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                       "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
                       "aria-label=\"roofline: attainable FLOP/s against arithmetic intensity\">\n%s"
                       "<rect class=\"bg\" width=\"%d\" height=\"%d\"/>\n",
                       RW, RH, RW, RH, chart_css, RW, RH));
    TRY(grid(b, &xs, 1, y0, y1, ""));
    TRY(grid(b, &ys, 0, x0, x1, ""));
    TRY(tdx_buf_printf(b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                       x0, y1, x1 - x0, y0 - y1));
    TRY(tdx_buf_printf(b,
                       "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">arithmetic "
                       "intensity (FLOP/byte)</text>\n<text class=\"axis\" transform=\"translate(16 "
                       "%.1f) rotate(-90)\" text-anchor=\"middle\">FLOP/s</text>\n",
                       (x0 + x1) / 2, RH - 12, (y0 + y1) / 2));
    /* the other matmul rates: dashed, from their own ridge point, unless
     * they would sit on the roof or on a line already drawn */
    double drawn[5] = {tdx_rep_log_map(&ys, peak)};
    int ndrawn = peak > 0;
    for (int i = 0; i < 4; i++) {
        if (!(r->mm[i] > 0) || r->mm[i] == peak)
            continue;
        double xr = dmax(xs.lo, r->mm[i] / r->copy_bw), y = tdx_rep_log_map(&ys, r->mm[i]);
        int near = 0;
        for (int k = 0; k < ndrawn; k++)
            near |= fabs(drawn[k] - y) < 12;
        if (near)
            continue;
        drawn[ndrawn++] = y;
        TRY(tdx_buf_printf(b,
                           "<line class=\"ceil-other\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                           "<text class=\"ceil-label\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                           tdx_rep_log_map(&xs, xr), y, x1, y, x1 + 4, y + 4, tdx_rep_mm_names[i]));
    }
    /* the roof: copy bandwidth up to the ridge, then the dtype's matmul rate */
    double xa = dmax(xs.lo, ys.lo / r->copy_bw);
    double xb = peak > 0 ? dmin(ridge, xs.hi) : xs.hi;
    TRY(tdx_buf_printf(b, "<polyline id=\"roof\" class=\"roof\" points=\"%.1f,%.1f %.1f,%.1f",
                       tdx_rep_log_map(&xs, xa), tdx_rep_log_map(&ys, xa * r->copy_bw),
                       tdx_rep_log_map(&xs, xb), tdx_rep_log_map(&ys, xb * r->copy_bw)));
    if (peak > 0)
        TRY(tdx_buf_printf(b, " %.1f,%.1f", x1, tdx_rep_log_map(&ys, peak)));
    TRY(tdx_buf_adds(b, "\"/>\n"));
    char bw[32], pk[32];
    tdx_rep_fmt_rate(bw, sizeof bw, r->copy_bw, "B/s");
    /* the bandwidth label along the slope, a third of the way up it */
    double lx = pow(10, log10(xa) + (log10(xb) - log10(xa)) / 3);
    double ax = tdx_rep_log_map(&xs, lx), ay = tdx_rep_log_map(&ys, lx * r->copy_bw);
    double bx = tdx_rep_log_map(&xs, lx * 10), by = tdx_rep_log_map(&ys, lx * 10 * r->copy_bw);
    TRY(tdx_buf_printf(b,
                       "<text class=\"roof-label\" transform=\"translate(%.1f %.1f) rotate(%.1f)\" "
                       "x=\"6\" y=\"-6\">copy %s</text>\n",
                       ax, ay, atan2(by - ay, bx - ax) * 180 / M_PI, bw));
    if (peak > 0) {
        tdx_rep_fmt_rate(pk, sizeof pk, peak, "FLOP/s");
        TRY(tdx_buf_printf(b,
                           "<text class=\"roof-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s "
                           "matmul %s</text>\n",
                           x1 - 6, tdx_rep_log_map(&ys, peak) + 16, pname ? pname : "", pk));
    }
    /* the kernel: a line through its states, then the points */
    double px = tdx_rep_log_map(&xs, in);
    TRY(tdx_buf_printf(b, "<line class=\"path\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px,
                       tdx_rep_log_map(&ys, r->flops / pts[0].seconds), px,
                       tdx_rep_log_map(&ys, r->flops / pts[np - 1].seconds)));
    for (size_t i = 0; i < np; i++) {
        const tdx_rep_point *p = &pts[i];
        double perf = r->flops / p->seconds, py = tdx_rep_log_map(&ys, perf);
        int end = strcmp(p->id, "kept") != 0;
        char frac[16], t[32];
        tdx_rep__fmt_pct(frac, sizeof frac, p->fraction);
        tdx_rep_fmt_time(t, sizeof t, p->seconds);
        TRY(tdx_buf_printf(b, "<circle %s%s%s class=\"pt pt-%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" "
                              "data-point=\"%s\" data-intensity=\"%.6g\" data-flops-per-s=\"%.6g\" "
                              "data-seconds=\"%.6g\"><title>",
                           end ? "id=\"pt-" : "", end ? p->id : "", end ? "\"" : "", p->id, px, py,
                           end ? 6 : 4, p->id, in, perf, p->seconds));
        TRY(tdx_rep_html_esc(b, p->label));
        TRY(tdx_buf_printf(b, ": %s, %s of the roofline</title></circle>\n", t, frac));
        if (end) {
            /* both right of the point: initial below, final above (they may coincide) */
            int below = strcmp(p->id, "initial") == 0;
            TRY(tdx_buf_printf(b, "<text class=\"pt-label\" x=\"%.1f\" y=\"%.1f\">", px + 10,
                               below ? py + 16 : py - 8));
            TRY(tdx_rep_html_esc(b, p->label));
            TRY(tdx_buf_printf(b, " %s (%s)</text>\n", t, frac));
        }
    }
    return tdx_buf_adds(b, "</svg>\n");
}

enum { PW = 760, PH = 300, PL = 64, PR = 150, PT = 16, PB = 48 };

/* The best kernel's fraction of the roofline after each round (what the
 * journal recorded: the baseline, then each keep), against the target. */
tdx_status tdx_rep_svg_progress(const tdx_rep_opt *o, tdx_buf *b)
{
    if (!o->have_baseline || o->base_fraction < 0 || o->nrounds == 0)
        return TDX_ERR_ARG;
    double fr[257];
    size_t n = 0;
    fr[n++] = o->base_fraction;
    double top = dmax(o->target_fraction, o->base_fraction);
    for (size_t i = 0; i < o->nrounds && n < 257; i++) {
        const tdx_rep_round *r = &o->rounds[i];
        fr[n] = r->kept_index && r->keep_fraction >= 0 ? r->keep_fraction : fr[n - 1];
        top = dmax(top, fr[n]);
        n++;
    }
    if (!isfinite(top) || top > 100)
        return TDX_ERR_ARG;
    /* a linear axis from 0 to the next 20% step above everything */
    double ymax = ceil(top * 5 + 1e-9) / 5;
    if (ymax < 0.2)
        ymax = 0.2;
    double x0 = PL, x1 = PW - PR, y0 = PH - PB, y1 = PT;
    double dx = (x1 - x0) / (double)(n > 1 ? n - 1 : 1);
#define PY(f) (y0 - (f) / ymax * (y0 - y1))
    TRY(tdx_buf_printf(b,
                       "<svg id=\"progress\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                       "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
                       "aria-label=\"fraction of the roofline after each round\">\n%s"
                       "<rect class=\"bg\" width=\"%d\" height=\"%d\"/>\n",
                       PW, PH, PW, PH, chart_css, PW, PH));
    for (int k = 0; k <= 5; k++) {
        double f = ymax * k / 5, y = PY(f);
        TRY(tdx_buf_printf(b,
                           "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                           "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.0f%%</text>\n",
                           x0, y, x1, y, x0 - 6, y + 4, 100 * f));
    }
    for (size_t i = 0; i < n; i++) {
        char t[24];
        snprintf(t, sizeof t, i ? "%zu" : "start", i);
        TRY(tdx_buf_printf(b, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                           x0 + dx * (double)i, y0 + 16, t));
    }
    TRY(tdx_buf_printf(b, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
                       x0, y1, x1 - x0, y0 - y1));
    if (o->target_fraction > 0)
        TRY(tdx_buf_printf(b,
                           "<line id=\"target\" class=\"ceil-other\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                           "y2=\"%.1f\"/><text class=\"ceil-label\" x=\"%.1f\" y=\"%.1f\">target %.0f%%</text>\n",
                           x0, PY(o->target_fraction), x1, PY(o->target_fraction), x1 + 4,
                           PY(o->target_fraction) + 4, 100 * o->target_fraction));
    TRY(tdx_buf_adds(b, "<polyline class=\"roof\" points=\""));
    for (size_t i = 0; i < n; i++)
        TRY(tdx_buf_printf(b, "%s%.1f,%.1f", i ? " " : "", x0 + dx * (double)i, PY(fr[i])));
    TRY(tdx_buf_adds(b, "\"/>\n"));
    for (size_t i = 0; i < n; i++) {
        const char *id = i == 0 ? "initial" : i + 1 == n ? "final" : "kept";
        TRY(tdx_buf_printf(b, "<circle class=\"pt pt-%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" data-round=\"%zu\" "
                              "data-fraction=\"%.4g\"><title>%s%zu: %.0f%% of the roofline</title></circle>\n",
                           id, x0 + dx * (double)i, PY(fr[i]), i == 0 || i + 1 == n ? 5 : 3, i, fr[i],
                           i ? "after round " : "start ", i, 100 * fr[i]));
    }
    TRY(tdx_buf_printf(b, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">round</text>\n"
                          "<text class=\"axis\" transform=\"translate(16 %.1f) rotate(-90)\" "
                          "text-anchor=\"middle\">best kernel, %% of roofline</text>\n</svg>\n",
                       (x0 + x1) / 2, PH - 8, (y0 + y1) / 2));
#undef PY
    return TDX_OK;
}

// A row that ran to the end and has both times.
static int row_ran(const tdx_bench_row *w)
{
    return strcmp(w->status, "ok") == 0 && w->initial_s > 0 && w->final_s > 0;
}

enum { BW = 680, BL = 200, BR = 70, BT = 10, BB = 44, BAR = 24 };

// The speedup bars of a bench run.
tdx_status tdx_rep_svg_speedups(const tdx_rep_results *s, tdx_buf *b)
{
    double lo = 1, hi = 1;
    for (size_t i = 0; i < s->rows.len; i++) {
        const tdx_bench_row *w = &s->rows.rows[i];
        if (!row_ran(w))
            continue;
        lo = dmin(lo, w->initial_s / w->final_s);
        hi = dmax(hi, w->initial_s / w->final_s);
    }
    tdx_rep_logscale xs = {0, 0, BL, BW - BR};
    if (tdx_rep_log_range(lo, hi, &xs.lo, &xs.hi))
        return TDX_ERR_ARG;
    int h = BT + BB + (int)s->rows.len * BAR;
    double top = BT, bottom = h - BB;
    TRY(tdx_buf_printf(b,
                       "<svg id=\"speedups\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
                       "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
                       "aria-label=\"speedup per task, log scale\">\n%s"
                       "<rect class=\"bg\" width=\"%d\" height=\"%d\"/>\n",
                       BW, h, BW, h, chart_css, BW, h));
    double ticks[12];
    size_t nt = tdx_rep_log_ticks(xs.lo, xs.hi, ticks, 8);
    for (size_t i = 0; i < nt; i++) {
        double p = tdx_rep_log_map(&xs, ticks[i]);
        TRY(tdx_buf_printf(b,
                           "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                           "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g×</text>\n",
                           p, top, p, bottom, p, bottom + 16, ticks[i]));
    }
    double one = tdx_rep_log_map(&xs, 1.0);
    for (size_t i = 0; i < s->rows.len; i++) {
        const tdx_bench_row *w = &s->rows.rows[i];
        double y = top + (double)i * BAR;
        TRY(tdx_buf_printf(b, "<text class=\"bar-name\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", BL - 8,
                           y + BAR / 2.0 + 4));
        TRY(tdx_rep_html_esc(b, w->task));
        TRY(tdx_buf_adds(b, "</text>\n"));
        if (!row_ran(w)) {
            TRY(tdx_buf_printf(b, "<text class=\"bar-missing\" x=\"%.1f\" y=\"%.1f\">did not run</text>\n",
                               one + 6, y + BAR / 2.0 + 4));
            continue;
        }
        double sp = w->initial_s / w->final_s, p = tdx_rep_log_map(&xs, sp);
        double bx = dmin(one, p), bw = fabs(p - one);
        TRY(tdx_buf_printf(b,
                           "<rect class=\"bar %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
                           "data-task=\"",
                           sp > 1 ? "up" : sp < 1 ? "down" : "flat", bx, y + 4, bw < 1 ? 1.0 : bw,
                           BAR - 8));
        TRY(tdx_rep_html_esc(b, w->task));
        TRY(tdx_buf_printf(b, "\" data-speedup=\"%.4g\"><title>", sp));
        TRY(tdx_rep_html_esc(b, w->task));
        TRY(tdx_buf_printf(b, ": %.2f×</title></rect>\n"
                              "<text class=\"bar-value\" x=\"%.1f\" y=\"%.1f\">%.2f×</text>\n",
                           sp, dmax(p, one) + 6, y + BAR / 2.0 + 4, sp));
    }
    TRY(tdx_buf_printf(b, "<line id=\"one-x\" class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                       one, top, one, bottom));
    TRY(tdx_buf_printf(b, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">speedup over "
                          "the task's initial kernel (log scale)</text>\n</svg>\n",
                       (xs.px0 + xs.px1) / 2, h - 8));
    return TDX_OK;
}

// The run's chart as a standalone file.
tdx_status tdx_rep_run_chart(const tdx_rep_model *m, tdx_buf *out, const char **name)
{
    *name = NULL;
    if (m->kind == TDX_REP_OPTIMIZE) {
        if (m->opt.roof.why || !m->opt.have_baseline)
            return TDX_ERR_NOTFOUND;
        *name = "report-roofline.svg";
        TRY(tdx_buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
        return tdx_rep_svg_roofline(&m->opt, out);
    }
    if (!m->bench.nsets)
        return TDX_ERR_NOTFOUND;
    *name = "report-speedups.svg";
    TRY(tdx_buf_adds(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    return tdx_rep_svg_speedups(&m->bench.sets[m->bench.main], out);
}
