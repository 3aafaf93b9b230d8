/* A loop-invariant scale of a tl.dot result (tdx_km_scaled_dots): the
 * attention kernel's `qk = tl.dot(q, tl.trans(k)) * sm_scale`, where q is
 * loaded once before the key loop. The multiply runs on every element of
 * every iteration's [BLOCK_M, BLOCK_N] result; (q * sm_scale) @ k^T is the
 * same product, with the multiply on q's [BLOCK_M, HEAD_DIM] once. Read
 * syntactically, as the rewrite that uses it writes the operand back as
 * text. */
#include <string.h>

#include "model/model.h"
#include "model/model_int.h"

/* The statement of def's own body that binds name, when def binds it once
 * and that statement starts before position before; else NULL. */
static const tdx_src_node *bound_once_before(const tdx_src_node *def, const char *name, size_t before)
{
    if (!name || tdx_src_count_bindings(def, name) != 1 || tdx_src_param(def, name))
        return NULL;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s && s->start < before;
         s = tdx_src_next(def, TDX_SRC_R_BODY, s))
        if (s->kind == TDX_SRC_ASSIGN && tdx_src_count(s, TDX_SRC_R_TARGET) == 1 &&
            tdx_src_is_name(tdx_src_kid(s, TDX_SRC_R_TARGET), name))
            return s;
    return NULL;
}

/* A literal, a parameter def never rebinds, a name bound once before
 * position before to such a value, or a product, quotient, sum or
 * difference of such: a value no loop changes. */
static int invariant_scalar(const tdx_src_node *def, const tdx_src_node *e, size_t before, int depth)
{
    if (!e || depth > 8)
        return 0;
    if (e->kind == TDX_SRC_NUMBER)
        return 1;
    if (e->kind == TDX_SRC_NAME) {
        if (tdx_src_param(def, e->name))
            return tdx_src_count_bindings(def, e->name) == 0;
        const tdx_src_node *b = bound_once_before(def, e->name, before);
        return b && invariant_scalar(def, tdx_src_kid(b, TDX_SRC_R_VALUE), b->start, depth + 1);
    }
    if (e->kind == TDX_SRC_BINOP && (e->op == TDX_OP_STAR || e->op == TDX_OP_SLASH || e->op == TDX_OP_PLUS ||
                                     e->op == TDX_OP_MINUS))
        return invariant_scalar(def, tdx_src_kid(e, TDX_SRC_R_LEFT), before, depth + 1) &&
               invariant_scalar(def, tdx_src_kid(e, TDX_SRC_R_RIGHT), before, depth + 1);
    return 0;
}

/* The innermost FOR of def whose body holds n, or NULL. */
static const tdx_src_node *loop_of(const tdx_src_node *def, const tdx_src_node *n)
{
    for (const tdx_src_node *p = n->parent; p && p != def; p = p->parent) {
        const tdx_src_node *body = p->kind == TDX_SRC_FOR ? tdx_src_kid(p, TDX_SRC_R_BODY) : NULL;
        if (body && n->start >= body->start)
            return p;
    }
    return NULL;
}

/* The statement of def's own body that holds n, or NULL. */
static const tdx_src_node *anchor_of(const tdx_src_node *def, const tdx_src_node *n)
{
    while (n && n->parent != def)
        n = n->parent;
    return n && n->role == TDX_SRC_R_BODY ? n : NULL;
}

/* A dot whose out_dtype names an integer type (an int8 product): its
 * operands are integers, and a scaled operand rounded back to one is not
 * the same product. */
static int int_product(const tdx_src_module *m, const tdx_src_node *dot)
{
    const tdx_src_node *od = tdx_src_call_kwarg(dot, "out_dtype");
    size_t l;
    const char *x = od ? tdx_src_text(m, od, &l) : NULL;
    for (size_t i = 0; x && i + 3 <= l; i++)
        if (memcmp(x + i, "int", 3) == 0)
            return 1;
    return 0;
}

typedef struct walk {
    const tdx_src_module *m;
    const tdx_src_node *def;
    tdx_km_scaled_dot *out;
    size_t n, max;
} walk;

static int visit(tdx_src_node *e, void *ud)
{
    walk *w = ud;
    if (w->n == w->max || e->kind != TDX_SRC_BINOP || e->op != TDX_OP_STAR)
        return 0;
    const tdx_src_node *loop = loop_of(w->def, e), *anchor = loop ? anchor_of(w->def, loop) : NULL;
    if (!anchor)
        return 0;
    const tdx_src_node *side[2] = {tdx_src_kid(e, TDX_SRC_R_LEFT), tdx_src_kid(e, TDX_SRC_R_RIGHT)};
    for (int d = 0; d < 2; d++) {
        const tdx_src_node *dot = side[d], *c = side[1 - d];
        const char *fn = dot && dot->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(dot)) : NULL;
        if (!fn || strcmp(fn, "dot") != 0 || tdx_src_call_nargs(dot) != 2 || tdx_src_call_kwarg(dot, "acc") ||
            int_product(w->m, dot) || !invariant_scalar(w->def, c, anchor->start, 0))
            continue;
        for (size_t k = 0; k < 2; k++) {
            const tdx_src_node *x = tdx_src_call_arg(dot, k);
            if (!tdx_src_is_name(x, NULL) || !bound_once_before(w->def, x->name, anchor->start))
                continue;
            tdx_km_scaled_dot *o = &w->out[w->n++];
            o->loop = loop;
            o->anchor = anchor;
            o->product = e;
            o->dot = dot;
            o->operand = x;
            o->scale = c;
            return 1;
        }
    }
    return 0;
}

size_t tdx_km_scaled_dots(const tdx_src_module *m, const tdx_src_node *def, tdx_km_scaled_dot *out, size_t max)
{
    walk w = {m, def, out, 0, max};
    if (def && max)
        tdx_src_walk((tdx_src_node *)def, visit, &w);
    return w.n;
}
