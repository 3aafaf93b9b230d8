/* A one-line progress display on stderr. */
#include "progress.h"

#include <stdarg.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void tdx_progress_init(tdx_progress *p, FILE *f, int off)
{
    p->f = f;
    p->enabled = !off && isatty(fileno(f));
    p->start = mono();
    p->last = 0;
    p->drawn = 0;
    p->delay_s = 1.0;
    p->min_gap_s = 0.1;
}

void tdx_progress_update(tdx_progress *p, const char *fmt, ...)
{
    if (!p->enabled)
        return;
    double t = mono();
    if (t - p->start < p->delay_s || (p->drawn && t - p->last < p->min_gap_s))
        return;
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(p->f, "\r\033[K%s", line);
    fflush(p->f);
    p->last = t;
    p->drawn = 1;
}

void tdx_progress_done(tdx_progress *p)
{
    if (p->enabled && p->drawn) {
        fputs("\r\033[K", p->f);
        fflush(p->f);
    }
    p->drawn = 0;
}
