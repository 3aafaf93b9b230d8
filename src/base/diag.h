/* tdx_diags: a list of user-facing messages (errors and warnings about
 * inputs), rendered like compiler diagnostics: `file:line:col: error: msg`.
 * Core code never prints: it appends here and returns a status.
 *
 * Ownership: the list owns copies of every string added; tdx_diags_free()
 * releases them all. */
#ifndef TDX_BASE_DIAG_H
#define TDX_BASE_DIAG_H

#include <stddef.h>

#include "base/arena.h"

typedef enum tdx_severity { TDX_SEV_NOTE, TDX_SEV_WARNING, TDX_SEV_ERROR } tdx_severity;

typedef struct tdx_diag {
    tdx_severity sev;
    const char *file; /* may be NULL */
    int line, col;    /* 1-based; 0 when unknown */
    const char *msg;  /* lower-case, no full stop */
} tdx_diag;

typedef struct tdx_diags {
    tdx_arena arena;
    tdx_diag *items;
    size_t len, cap;
    size_t nerrors;
} tdx_diags;

void tdx_diags_init(tdx_diags *d);
void tdx_diags_free(tdx_diags *d);
/* Append a message; silently dropped when out of memory or past 10000. */
void tdx_diags_add(tdx_diags *d, tdx_severity sev, const char *file, int line, int col,
                   const char *fmt, ...) __attribute__((format(printf, 6, 7)));

const char *tdx_severity_str(tdx_severity sev);

#endif
