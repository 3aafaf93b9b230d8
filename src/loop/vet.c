/* Static vetting of a candidate against the original task, and hashing. */
#include <stdio.h>
#include <string.h>

#include "loop/loop.h"
#include "source/ast.h"

void tdx_loop_hash(const char *s, size_t n, char out[17])
{
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    snprintf(out, 17, "%016llx", h);
}

/* The text of a module-level statement defining or assigning `name`, or NULL. */
static const char *top_level_text(const tdx_src_module *m, const char *name, size_t *len)
{
    for (uint32_t i = 0; i < m->root->nkids; i++) {
        const tdx_src_node *s = m->root->kids[i];
        if ((s->kind == TDX_SRC_FUNCDEF || s->kind == TDX_SRC_CLASSDEF) && s->name &&
            strcmp(s->name, name) == 0)
            return tdx_src_text(m, s, len);
        if (s->kind == TDX_SRC_ASSIGN || s->kind == TDX_SRC_ANNASSIGN) {
            const tdx_src_node *t = tdx_src_kid(s, TDX_SRC_R_TARGET);
            if (t && t->kind == TDX_SRC_NAME && t->name && strcmp(t->name, name) == 0)
                return tdx_src_text(m, s, len);
        }
    }
    return NULL;
}

/* The parameter list of launch as text (from the first PARAM to the last), "" when none. */
static int launch_params(const tdx_src_module *m, const char **p, size_t *n)
{
    const tdx_src_node *def = NULL;
    for (uint32_t i = 0; i < m->root->nkids; i++) {
        const tdx_src_node *s = m->root->kids[i];
        if (s->kind == TDX_SRC_FUNCDEF && s->name && strcmp(s->name, "launch") == 0)
            def = s;
    }
    if (!def)
        return -1;
    *p = "";
    *n = 0;
    const tdx_src_node *first = tdx_src_kid(def, TDX_SRC_R_PARAM), *last = NULL;
    for (const tdx_src_node *k = first; k; k = tdx_src_next(def, TDX_SRC_R_PARAM, k))
        last = k;
    if (first) {
        *p = m->src + first->start;
        *n = last->end - first->start;
    }
    return 0;
}

static int same_text(const char *a, size_t an, const char *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

void tdx_loop_vet(const char *orig, size_t olen, const char *cand, size_t clen, char *why,
                  size_t why_len)
{
    why[0] = '\0';
    tdx_arena a;
    tdx_arena_init(&a, 0);
    tdx_diags d;
    tdx_diags_init(&d);
    tdx_src_module *mo = NULL, *mc = NULL;
    if (tdx_src_parse("original", orig, olen, &a, &d, &mo) != TDX_OK) {
        snprintf(why, why_len, "the original task does not parse");
        goto done;
    }
    if (tdx_src_parse("candidate", cand, clen, &a, &d, &mc) != TDX_OK) {
        const tdx_diag *g = d.len ? &d.items[d.len - 1] : NULL;
        snprintf(why, why_len, "candidate does not parse: %d:%d: %s", g ? g->line : 0,
                 g ? g->col : 0, g ? g->msg : "syntax error");
        goto done;
    }
    tdx_ptrvec jit = {0};
    if (tdx_src_find_jit(mc, &a, &jit) <= 0) {
        snprintf(why, why_len, "candidate defines no @triton.jit kernel");
        goto done;
    }
    const char *po, *pc;
    size_t no, nc;
    if (launch_params(mc, &pc, &nc) != 0) {
        snprintf(why, why_len, "candidate has no launch()");
        goto done;
    }
    if (launch_params(mo, &po, &no) == 0 && !same_text(po, no, pc, nc)) {
        snprintf(why, why_len, "candidate changes launch's parameters from (%.*s) to (%.*s)",
                 (int)(no > 80 ? 80 : no), po, (int)(nc > 80 ? 80 : nc), pc);
        goto done;
    }
    static const char *const fixed[] = {"reference", "make_inputs", "SHAPES", "TOLERANCE", "flops", "bytes"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        size_t ln = 0, lc = 0;
        const char *to = top_level_text(mo, fixed[i], &ln);
        const char *tc = top_level_text(mc, fixed[i], &lc);
        if (to && (!tc || !same_text(to, ln, tc, lc))) {
            snprintf(why, why_len, "candidate changes %s, which belongs to the task", fixed[i]);
            goto done;
        }
        /* a TOLERANCE (or flops/bytes) the task does not set is the task's
         * default, and not the candidate's to loosen */
        if (!to && tc) {
            snprintf(why, why_len, "candidate adds %s, which belongs to the task", fixed[i]);
            goto done;
        }
    }
done:
    tdx_diags_free(&d);
    tdx_arena_free(&a);
}
