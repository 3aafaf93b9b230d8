/* Log scales, ticks, escaping and number formats of the run reports. */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

// Round a value range out to whole decades.
int tdx_rep_log_range(double vmin, double vmax, double *lo, double *hi)
{
    if (!(vmin > 0) || !(vmax >= vmin) || !isfinite(vmin) || !isfinite(vmax))
        return -1;
    double a = floor(log10(vmin)), b = ceil(log10(vmax));
    /* a value that sits on a power of ten still gets a decade of room */
    if (b <= a)
        b = a + 1;
    *lo = pow(10, a);
    *hi = pow(10, b);
    return 0;
}

// A value onto its pixel on a log axis.
double tdx_rep_log_map(const tdx_rep_logscale *s, double v)
{
    double t = (log10(v) - log10(s->lo)) / (log10(s->hi) - log10(s->lo));
    return s->px0 + t * (s->px1 - s->px0);
}

// The decades of an axis, thinned to fit.
size_t tdx_rep_log_ticks(double lo, double hi, double *ticks, size_t max)
{
    if (!(lo > 0) || !(hi >= lo) || max == 0)
        return 0;
    long a = lround(floor(log10(lo) + 1e-9)), b = lround(floor(log10(hi) + 1e-9));
    size_t decades = (size_t)(b - a) + 1;
    size_t step = (decades + max - 1) / max;
    size_t n = 0;
    for (long e = a; e <= b && n < max; e += (long)step)
        ticks[n++] = pow(10, (double)e);
    return n;
}

// Escape n bytes for HTML text or a quoted attribute.
tdx_status tdx_rep_html_escn(tdx_buf *out, const char *s, size_t n)
{
    tdx_status st = TDX_OK;
    size_t run = 0; /* bytes copied as they are, flushed in one go */
    for (size_t i = 0; i < n && !st; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: break;
        }
        if (!rep) {
            run++;
            continue;
        }
        st = tdx_buf_add(out, s + i - run, run);
        run = 0;
        if (!st)
            st = tdx_buf_adds(out, rep);
    }
    if (!st && run)
        st = tdx_buf_add(out, s + n - run, run);
    return st;
}

// Escape a string for HTML text or a quoted attribute.
tdx_status tdx_rep_html_esc(tdx_buf *out, const char *s)
{
    return s ? tdx_rep_html_escn(out, s, strlen(s)) : TDX_OK;
}

// Escape a string as Markdown inline text.
tdx_status tdx_rep_md_text(tdx_buf *out, const char *s)
{
    tdx_status st = TDX_OK;
    for (; s && *s && !st; s++) {
        if (*s == '\n' || *s == '\r' || *s == '\t')
            st = tdx_buf_addc(out, ' ');
        else if (strchr("\\`*[]<|", *s))
            st = tdx_buf_printf(out, "\\%c", *s);
        else
            st = tdx_buf_addc(out, *s);
    }
    return st;
}

/* The longest run of backticks in s. */
static size_t max_ticks(const char *s)
{
    size_t best = 0, cur = 0;
    for (; s && *s; s++) {
        cur = *s == '`' ? cur + 1 : 0;
        if (cur > best)
            best = cur;
    }
    return best;
}

// n copies of c.
static tdx_status fence(tdx_buf *out, char c, size_t n)
{
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < n && !st; i++)
        st = tdx_buf_addc(out, c);
    return st;
}

// A string as a Markdown code span.
tdx_status tdx_rep_md_code(tdx_buf *out, const char *s)
{
    size_t n = max_ticks(s) + 1;
    int pad = s && (s[0] == '`' || (s[0] && s[strlen(s) - 1] == '`'));
    tdx_status st = fence(out, '`', n);
    if (!st && pad)
        st = tdx_buf_addc(out, ' ');
    for (; !st && s && *s; s++)
        st = tdx_buf_addc(out, (*s == '\n' || *s == '\r') ? ' ' : *s);
    if (!st && pad)
        st = tdx_buf_addc(out, ' ');
    return st ? st : fence(out, '`', n);
}

// A string as a fenced Markdown code block.
tdx_status tdx_rep_md_block(tdx_buf *out, const char *info, const char *s)
{
    size_t n = max_ticks(s) + 1;
    if (n < 3)
        n = 3;
    tdx_status st = fence(out, '`', n);
    if (!st)
        st = tdx_buf_printf(out, "%s\n", info ? info : "");
    if (!st && s)
        st = tdx_buf_adds(out, s);
    if (!st && s && s[0] && s[strlen(s) - 1] != '\n')
        st = tdx_buf_addc(out, '\n');
    if (!st)
        st = fence(out, '`', n);
    return st ? st : tdx_buf_addc(out, '\n');
}

// A duration with a unit.
void tdx_rep_fmt_time(char *out, size_t n, double s)
{
    if (!(s > 0))
        snprintf(out, n, "–");
    else if (s >= 1.0)
        snprintf(out, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(out, n, "%.3g ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(out, n, "%.3g µs", s * 1e6);
    else
        snprintf(out, n, "%.3g ns", s * 1e9);
}

// A rate with an SI prefix.
void tdx_rep_fmt_rate(char *out, size_t n, double v, const char *unit)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P", "E"};
    int i = 0;
    while (fabs(v) >= 999.5 && i < 6) {
        v /= 1000.0;
        i++;
    }
    snprintf(out, n, "%.3g %s%s", v, pre[i], unit);
}

// A power of ten as an axis label.
void tdx_rep_fmt_tick(char *out, size_t n, double v)
{
    static const char *pre[] = {"", "K", "M", "G", "T", "P", "E"};
    if (v < 1) {
        snprintf(out, n, "%g", v);
        return;
    }
    int i = 0;
    while (v >= 999.5 && i < 6) {
        v /= 1000.0;
        i++;
    }
    snprintf(out, n, "%.0f%s%s", v, i ? " " : "", pre[i]);
}
