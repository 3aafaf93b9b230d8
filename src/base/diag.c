#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void tdx_diags_init(tdx_diags *d)
{
    tdx_arena_init(&d->arena, 16 * 1024);
    d->items = NULL;
    d->len = d->cap = d->nerrors = 0;
}

void tdx_diags_free(tdx_diags *d)
{
    tdx_arena_free(&d->arena);
    free(d->items);
    d->items = NULL;
    d->len = d->cap = d->nerrors = 0;
}

void tdx_diags_add(tdx_diags *d, tdx_severity sev, const char *file, int line, int col,
                   const char *fmt, ...)
{
    if (sev == TDX_SEV_ERROR)
        d->nerrors++;
    if (d->len >= 10000)
        return;
    if (d->len == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        tdx_diag *p = realloc(d->items, cap * sizeof *p);
        if (!p)
            return;
        d->items = p;
        d->cap = cap;
    }
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    tdx_diag *g = &d->items[d->len];
    g->sev = sev;
    g->file = file ? tdx_arena_strdup(&d->arena, file) : NULL;
    g->line = line;
    g->col = col;
    g->msg = tdx_arena_strdup(&d->arena, tmp);
    if (!g->msg)
        return;
    d->len++;
}

const char *tdx_severity_str(tdx_severity sev)
{
    switch (sev) {
    case TDX_SEV_NOTE: return "note";
    case TDX_SEV_WARNING: return "warning";
    case TDX_SEV_ERROR: return "error";
    }
    return "?";
}
