/* The reports' grid tables -- the bench report's row per task and per
 * results file of an ablation, the optimize report's roofline points -- and
 * its ceilings line, written once for Markdown and HTML (tdx_rep_mark). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/report_int.h"
#include "report/run_int.h"
#include "report/svg.h"

// A table's header row: "| a | b |\n|---|---|\n" or "<table ATTRS>\n<tr><th>a</th>...</tr>\n".
static tdx_status head(tdx_buf *b, tdx_rep_mark m, const char *attrs, const char *const *names, size_t n)
{
    if (m == TDX_REP_HTML) {
        TRY(tdx_buf_printf(b, "<table%s>\n<tr>", attrs));
        for (size_t i = 0; i < n; i++) {
            TRY(tdx_buf_adds(b, "<th>"));
            TRY(tdx_rep_html_esc(b, names[i]));
            TRY(tdx_buf_adds(b, "</th>"));
        }
        return tdx_buf_adds(b, "</tr>\n");
    }
    for (size_t i = 0; i < n; i++)
        TRY(tdx_buf_printf(b, "| %s ", names[i]));
    TRY(tdx_buf_adds(b, "|\n"));
    for (size_t i = 0; i < n; i++)
        TRY(tdx_buf_adds(b, "|---"));
    return tdx_buf_adds(b, "|\n");
}

// A cell's start ("| ", "<td>", "<td class=\"num\">") and end (" ", "</td>").
static tdx_status cell(tdx_buf *b, tdx_rep_mark m, int num)
{
    return tdx_buf_adds(b, m == TDX_REP_MD ? "| " : num ? "<td class=\"num\">" : "<td>");
}

static tdx_status cell_end(tdx_buf *b, tdx_rep_mark m)
{
    return tdx_buf_adds(b, m == TDX_REP_MD ? " " : "</td>");
}

// A row's start and end.
static tdx_status row(tdx_buf *b, tdx_rep_mark m)
{
    return m == TDX_REP_HTML ? tdx_buf_adds(b, "<tr>") : TDX_OK;
}

static tdx_status row_end(tdx_buf *b, tdx_rep_mark m)
{
    return tdx_buf_adds(b, m == TDX_REP_MD ? "|\n" : "</tr>\n");
}

// A numeric cell of preformatted text.
static tdx_status num_cell(tdx_buf *b, tdx_rep_mark m, const char *text)
{
    TRY(cell(b, m, 1));
    TRY(tdx_buf_adds(b, text));
    return cell_end(b, m);
}

// A numeric cell, printf-style.
static tdx_status numf(tdx_buf *b, tdx_rep_mark m, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static tdx_status numf(tdx_buf *b, tdx_rep_mark m, const char *fmt, ...)
{
    char t[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap); // NOLINT(clang-analyzer-valist.Uninitialized): va_start above
    va_end(ap);
    return num_cell(b, m, t);
}

static tdx_status time_cell(tdx_buf *b, tdx_rep_mark m, double s)
{
    char t[32];
    tdx_rep_fmt_time(t, sizeof t, s);
    return num_cell(b, m, t);
}

static tdx_status pct_cell(tdx_buf *b, tdx_rep_mark m, double f)
{
    char p[16];
    tdx_rep__fmt_pct(p, sizeof p, f);
    return num_cell(b, m, p);
}

// A name in code type (HTML) or as text (Markdown).
static tdx_status name_text(tdx_buf *b, tdx_rep_mark m, const char *s)
{
    if (m == TDX_REP_MD)
        return tdx_rep_md_text(b, s);
    TRY(tdx_buf_adds(b, "<code>"));
    TRY(tdx_rep_html_esc(b, s));
    return tdx_buf_adds(b, "</code>");
}

// The task's name, linked to its own report when its run is there.
static tdx_status task_text(tdx_buf *b, tdx_rep_mark m, const char *task, const char *run_dir)
{
    if (!run_dir)
        return name_text(b, m, task);
    if (m == TDX_REP_MD) {
        TRY(tdx_buf_adds(b, "["));
        TRY(tdx_rep_md_text(b, task));
        TRY(tdx_buf_adds(b, "]("));
        TRY(tdx_rep__uri(run_dir, NULL, b));
        return tdx_buf_adds(b, "/report.md)");
    }
    /* percent-encoded, then escaped */
    tdx_buf u;
    tdx_buf_init(&u, 0);
    tdx_status st = tdx_rep__uri(run_dir, NULL, &u);
    if (!st)
        st = tdx_buf_adds(b, "<a href=\"");
    if (!st)
        st = tdx_rep_html_esc(b, tdx_buf_str(&u));
    tdx_buf_free(&u);
    TRY(st);
    TRY(tdx_buf_adds(b, "/report.html\">"));
    TRY(name_text(b, m, task));
    return tdx_buf_adds(b, "</a>");
}

// A row that ran to the end and has both times.
static int row_ran(const tdx_bench_row *w)
{
    return strcmp(w->status, "ok") == 0 && w->initial_s > 0 && w->final_s > 0;
}

tdx_status tdx_rep__results_table(tdx_buf *b, tdx_rep_mark m, const tdx_rep_results *s, int link)
{
    static const char *const names[] = {"task", "initial", "final", "speedup", "roofline before",
                                        "roofline after", "torch eager", "torch.compile", "rounds",
                                        "kept (level)", "status"};
    TRY(head(b, m, " id=\"results\"", names, sizeof names / sizeof names[0]));
    for (size_t i = 0; i < s->rows.len; i++) {
        const tdx_bench_row *w = &s->rows.rows[i];
        TRY(row(b, m));
        TRY(cell(b, m, 0));
        TRY(task_text(b, m, w->task, link && s->run_dirs ? s->run_dirs[i] : NULL));
        TRY(cell_end(b, m));
        TRY(time_cell(b, m, w->initial_s));
        if (tdx_bench_looser(w)) { /* judged at a looser tolerance than the task: marked */
            char t[32], u[48];
            tdx_rep_fmt_time(t, sizeof t, w->final_s);
            snprintf(u, sizeof u, "%s †", t);
            TRY(num_cell(b, m, u));
        } else {
            TRY(time_cell(b, m, w->final_s));
        }
        TRY(cell(b, m, 1));
        if (row_ran(w))
            TRY(tdx_buf_printf(b, m == TDX_REP_HTML ? "<strong>%.2f×</strong>" : "%.2f×", w->initial_s / w->final_s));
        else
            TRY(tdx_buf_adds(b, "–"));
        TRY(cell_end(b, m));
        TRY(pct_cell(b, m, w->fraction_before));
        TRY(pct_cell(b, m, w->fraction_after));
        TRY(time_cell(b, m, w->eager_s));
        TRY(time_cell(b, m, w->compile_s));
        TRY(numf(b, m, "%d", w->rounds > 0 ? w->rounds : 0));
        TRY(cell(b, m, 0));
        TRY(tdx_rep__text(b, m, w->families[0] ? w->families : "–"));
        if (w->levels[0]) {
            TRY(tdx_buf_adds(b, " ("));
            TRY(tdx_rep__text(b, m, w->levels));
            TRY(tdx_buf_adds(b, ")"));
        }
        TRY(cell_end(b, m));
        TRY(cell(b, m, 0));
        TRY(tdx_rep__text(b, m, w->status));
        TRY(cell_end(b, m));
        TRY(row_end(b, m));
    }
    return tdx_buf_adds(b, m == TDX_REP_MD ? "\n" : "</table>\n");
}

tdx_status tdx_rep__ablation_table(tdx_buf *b, tdx_rep_mark m, const tdx_rep_bench *bn)
{
    static const char *const names[] = {"results", "max level", "tasks run", "geomean", "median", "> 2×",
                                        "> 5×", "median roofline", "GPU runs", "compiles", "LLM tokens",
                                        "wall time"};
    TRY(head(b, m, "", names, sizeof names / sizeof names[0]));
    for (size_t i = 0; i < bn->nsets; i++) {
        const tdx_rep_results *s = &bn->sets[i];
        const tdx_bench_summary *u = &s->sum;
        TRY(row(b, m));
        TRY(cell(b, m, 0));
        TRY(name_text(b, m, s->name));
        TRY(cell_end(b, m));
        TRY(s->max_level >= 0 ? numf(b, m, "%d", s->max_level) : num_cell(b, m, "–"));
        TRY(numf(b, m, "%zu / %zu", u->ok, u->tasks));
        if (u->ok) {
            TRY(numf(b, m, "%.2f×", u->geomean));
            TRY(numf(b, m, "%.2f×", u->median));
            TRY(numf(b, m, "%zu", u->above2));
            TRY(numf(b, m, "%zu", u->above5));
        } else {
            for (int k = 0; k < 4; k++) {
                TRY(cell(b, m, 0));
                TRY(tdx_buf_adds(b, "–"));
                TRY(cell_end(b, m));
            }
        }
        TRY(pct_cell(b, m, u->median_fraction));
        TRY(numf(b, m, "%ld", s->gpu_runs));
        TRY(numf(b, m, "%ld", s->compiles));
        TRY(numf(b, m, "%ld", s->tokens));
        TRY(numf(b, m, "%.0f s", u->seconds));
        TRY(row_end(b, m));
    }
    return tdx_buf_adds(b, m == TDX_REP_MD ? "\n" : "</table>\n");
}

tdx_status tdx_rep__ceilings_text(tdx_buf *b, tdx_rep_mark m, const tdx_rep_roof *r)
{
    char a[48], c[48];
    tdx_rep_fmt_rate(a, sizeof a, r->copy_bw, "B/s");
    TRY(tdx_buf_adds(b, "Ceilings"));
    if (r->device) {
        TRY(tdx_buf_adds(b, " of "));
        TRY(tdx_rep__text(b, m, r->device));
    }
    TRY(tdx_buf_printf(b, ": copy bandwidth %s", a));
    for (int i = 0; i < 4; i++)
        if (r->mm[i] > 0) {
            tdx_rep_fmt_rate(c, sizeof c, r->mm[i], "FLOP/s");
            TRY(tdx_buf_printf(b, ", %s matmul %s", tdx_rep_mm_names[i], c));
        }
    return TDX_OK;
}

tdx_status tdx_rep__points_table(tdx_buf *b, tdx_rep_mark m, const tdx_rep_opt *o)
{
    static const char *const names[] = {"kernel", "time", "achieved", "% of roofline"};
    TRY(head(b, m, "", names, sizeof names / sizeof names[0]));
    tdx_rep_point pts[64];
    size_t n = tdx_rep__points(o, pts, 64);
    for (size_t i = 0; i < n; i++) {
        char c[48];
        tdx_rep_fmt_rate(c, sizeof c, o->roof.flops / pts[i].seconds, "FLOP/s");
        TRY(row(b, m));
        TRY(cell(b, m, 0));
        TRY(tdx_rep__text(b, m, pts[i].label));
        TRY(cell_end(b, m));
        TRY(time_cell(b, m, pts[i].seconds));
        TRY(num_cell(b, m, c));
        TRY(pct_cell(b, m, pts[i].fraction));
        TRY(row_end(b, m));
    }
    return tdx_buf_adds(b, m == TDX_REP_MD ? "\n" : "</table>\n");
}
