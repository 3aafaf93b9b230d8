#include "finding/finding.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tdx_ledger_init(tdx_ledger *l)
{
    tdx_arena_init(&l->arena, 32 * 1024);
    memset(&l->findings, 0, sizeof l->findings);
    memset(&l->kernels, 0, sizeof l->kernels);
}

void tdx_ledger_free(tdx_ledger *l)
{
    tdx_arena_free(&l->arena);
    memset(&l->findings, 0, sizeof l->findings);
    memset(&l->kernels, 0, sizeof l->kernels);
}

static char *vfmt(tdx_arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *p = tdx_arena_alloc(a, (size_t)n + 1);
    if (p)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

tdx_finding *tdx_ledger_add(tdx_ledger *l, const char *rule_id, const char *file, int line,
                            int col, const char *fmt, ...)
{
    const tdx_rule *r = tdx_rule_find(rule_id);
    if (!r)
        return NULL;
    tdx_finding *f = tdx_arena_alloc(&l->arena, sizeof *f);
    if (!f)
        return NULL;
    f->rule = r;
    f->level = r->level;
    f->sev = r->sev;
    f->family = r->family;
    f->confidence = 0.5;
    f->file = file ? tdx_arena_strdup(&l->arena, file) : NULL;
    f->line = line;
    f->col = col;
    va_list ap;
    va_start(ap, fmt);
    f->message = vfmt(&l->arena, fmt, ap);
    va_end(ap);
    if (!f->message || tdx_ptrvec_push(&l->arena, &l->findings, f) != 0)
        return NULL;
    f->id = (int)l->findings.len;
    return f;
}

tdx_status tdx_finding_set_hypothesis(tdx_ledger *l, tdx_finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    f->hypothesis = vfmt(&l->arena, fmt, ap);
    va_end(ap);
    return f->hypothesis ? TDX_OK : TDX_ERR_NOMEM;
}

tdx_status tdx_finding_set_evidence(tdx_ledger *l, tdx_finding *f, const char *text)
{
    f->evidence = text ? tdx_arena_strdup(&l->arena, text) : NULL;
    return (!text || f->evidence) ? TDX_OK : TDX_ERR_NOMEM;
}

tdx_status tdx_finding_set_kernel(tdx_ledger *l, tdx_finding *f, const char *kernel)
{
    f->kernel = kernel ? tdx_arena_strdup(&l->arena, kernel) : NULL;
    return (!kernel || f->kernel) ? TDX_OK : TDX_ERR_NOMEM;
}

tdx_status tdx_finding_fact(tdx_ledger *l, tdx_finding *f, const char *key, const char *fmt, ...)
{
    if (f->nfacts == f->capfacts) {
        size_t cap = f->capfacts ? f->capfacts * 2 : 4;
        tdx_fact *p = tdx_arena_alloc(&l->arena, cap * sizeof *p);
        if (!p)
            return TDX_ERR_NOMEM;
        if (f->nfacts)
            memcpy(p, f->facts, f->nfacts * sizeof *p);
        f->facts = p;
        f->capfacts = cap;
    }
    tdx_fact *fa = &f->facts[f->nfacts];
    fa->key = tdx_arena_strdup(&l->arena, key);
    va_list ap;
    va_start(ap, fmt);
    fa->value = vfmt(&l->arena, fmt, ap);
    va_end(ap);
    if (!fa->key || !fa->value)
        return TDX_ERR_NOMEM;
    f->nfacts++;
    return TDX_OK;
}

const char *tdx_finding_get_fact(const tdx_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nfacts; i++)
        if (strcmp(f->facts[i].key, key) == 0)
            return f->facts[i].value;
    return NULL;
}

tdx_status tdx_finding_cite(tdx_ledger *l, tdx_finding *f, int other_id)
{
    if (f->ncites == f->capcites) {
        size_t cap = f->capcites ? f->capcites * 2 : 4;
        int *p = tdx_arena_alloc(&l->arena, cap * sizeof *p);
        if (!p)
            return TDX_ERR_NOMEM;
        if (f->ncites)
            memcpy(p, f->cites, f->ncites * sizeof *p);
        f->cites = p;
        f->capcites = cap;
    }
    f->cites[f->ncites++] = other_id;
    return TDX_OK;
}

tdx_kernel_info *tdx_ledger_add_kernel(tdx_ledger *l, const char *name, const char *file, int line,
                                       int col, const char *pattern, double confidence)
{
    tdx_kernel_info *k = tdx_arena_alloc(&l->arena, sizeof *k);
    if (!k)
        return NULL;
    k->name = tdx_arena_strdup(&l->arena, name ? name : "?");
    k->file = file ? tdx_arena_strdup(&l->arena, file) : NULL;
    k->line = line;
    k->col = col;
    k->pattern = tdx_arena_strdup(&l->arena, pattern ? pattern : "unknown");
    k->confidence = confidence;
    if (tdx_ptrvec_push(&l->arena, &l->kernels, k) != 0)
        return NULL;
    return k;
}

static int cmp_findings(const void *a, const void *b)
{
    const tdx_finding *x = *(tdx_finding *const *)a, *y = *(tdx_finding *const *)b;
    int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");
    if (c)
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    c = strcmp(x->rule->id, y->rule->id);
    if (c)
        return c;
    return x->id < y->id ? -1 : x->id > y->id;
}

void tdx_ledger_sort(tdx_ledger *l)
{
    if (l->findings.len > 1)
        qsort(l->findings.items, l->findings.len, sizeof(void *), cmp_findings);
}
