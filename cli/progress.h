/* Progress on stderr for long commands: only on a terminal, only after about
 * a second, at most ten redraws a second, erased when done. stdout is never
 * touched, so --format json stays clean. */
#ifndef TDX_CLI_PROGRESS_H
#define TDX_CLI_PROGRESS_H

#include <stdio.h>

typedef struct tdx_progress {
    FILE *f;
    int enabled;       /* a terminal and not turned off */
    double start;      /* monotonic seconds */
    double last;       /* last redraw */
    int drawn;         /* something is on the line */
    double delay_s;    /* 1.0 */
    double min_gap_s;  /* 0.1 */
} tdx_progress;

/* off: --no-progress or --quiet. force: draw even when f is not a terminal
 * (for tests through a pseudo-terminal this is not needed). */
void tdx_progress_init(tdx_progress *p, FILE *f, int off);
/* Redraw the line with a printf-style message, if due. */
void tdx_progress_update(tdx_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Erase the line, if drawn. */
void tdx_progress_done(tdx_progress *p);

#endif
