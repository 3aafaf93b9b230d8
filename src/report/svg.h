/* Drawing and escaping helpers of the run reports (tdx_rep_*): log scales
 * and their decade ticks for the SVG charts, HTML and Markdown escaping of
 * every string taken from a run, and the number formats the reports share.
 *
 * Everything appends to a caller's tdx_buf; nothing here allocates beyond it. */
#ifndef TDX_REPORT_SVG_H
#define TDX_REPORT_SVG_H

#include <stddef.h>

#include "base/buf.h"
#include "base/status.h"

/* A log10 axis: values in [lo, hi] (both > 0, lo < hi) onto pixels
 * [px0, px1] (px1 may be below px0: SVG's y grows downwards). */
typedef struct tdx_rep_logscale {
    double lo, hi;
    double px0, px1;
} tdx_rep_logscale;

/* The decade-aligned range that holds [vmin, vmax]: *lo = 10^floor(log10
 * vmin), *hi = 10^ceil(log10 vmax), at least one decade wide. Returns -1
 * (and leaves the outputs alone) unless 0 < vmin <= vmax, both finite. */
int tdx_rep_log_range(double vmin, double vmax, double *lo, double *hi);

/* The pixel of v on s (not clamped; v must be > 0). */
double tdx_rep_log_map(const tdx_rep_logscale *s, double v);

/* The powers of ten from lo to hi (inclusive) into ticks[max], thinned to
 * every 2nd, 3rd, ... decade so that at most max remain; the count. */
size_t tdx_rep_log_ticks(double lo, double hi, double *ticks, size_t max);

/* s with & < > " ' as character references (safe in text and in quoted
 * attribute values). A NULL s appends nothing. */
tdx_status tdx_rep_html_esc(tdx_buf *out, const char *s);
tdx_status tdx_rep_html_escn(tdx_buf *out, const char *s, size_t n);

/* s as Markdown inline text: the CommonMark punctuation that could open
 * code, emphasis, links, images, raw HTML or a table cell (\ ` * [ ] < |)
 * backslash-escaped, line breaks as spaces, so that text from a run can
 * neither break a table nor smuggle HTML. */
tdx_status tdx_rep_md_text(tdx_buf *out, const char *s);
/* s as an inline code span, with a fence longer than any backtick run in
 * it; line breaks as spaces. */
tdx_status tdx_rep_md_code(tdx_buf *out, const char *s);
/* s as a fenced code block with an info string (may be ""), the fence
 * longer than any backtick run in s; a final newline is added if missing. */
tdx_status tdx_rep_md_block(tdx_buf *out, const char *info, const char *s);

/* A duration with 3 significant digits and a unit: "1 ms", "62.5 µs",
 * "4.2 ns"; "–" when not positive. */
void tdx_rep_fmt_time(char *out, size_t n, double seconds);
/* A rate with an SI prefix: "4.25 TB/s", "750 TFLOP/s". */
void tdx_rep_fmt_rate(char *out, size_t n, double v, const char *unit);
/* A tick label for a power of ten with an SI prefix: "1 T", "100 G", "0.01". */
void tdx_rep_fmt_tick(char *out, size_t n, double v);

#endif
