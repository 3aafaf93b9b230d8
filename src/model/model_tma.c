/* Dot operands a tensor descriptor can load (tdx_km_tma_loads): a tl.dot
 * loop whose two operand tiles are read through `P + R[:, None] * S0 +
 * C[None, :] * S1` under the bounds mask `R[:, None] < B0 & C[None, :] < B1`.
 * Such a load is exactly a TMA box of SIZE0 x SIZE1 at (offset of R, offset
 * of C) in the tensor of shape (B0, B1) and strides (S0, S1): out-of-bounds
 * elements read as zero either way. A base moved by I * S (a batch of a
 * bmm) makes it the box [1, SIZE0, SIZE1] at (I, R, C) of a 3-D tensor of
 * strides (S, S0, S1). Read syntactically, as the rewrite that uses it
 * writes the offsets back as text. */
#include <string.h>

#include "model/model.h"
#include "model/model_ctx.h"
#include "model/model_int.h"

enum { MAX_DEPTH = 8 };

typedef struct find_assign {
    const char *name;
    const tdx_src_node *value;
    int n;
} find_assign;

static int assign_visit(tdx_src_node *n, void *ud)
{
    find_assign *f = ud;
    if (n->kind == TDX_SRC_ASSIGN && tdx_src_count(n, TDX_SRC_R_TARGET) == 1 &&
        tdx_src_is_name(tdx_src_kid(n, TDX_SRC_R_TARGET), f->name)) {
        f->value = tdx_src_kid(n, TDX_SRC_R_VALUE);
        f->n++;
    }
    return 0;
}

/* The value of name's one binding in def (a plain assignment), or NULL. */
static const tdx_src_node *single_value(const tdx_src_node *def, const char *name)
{
    if (!name || tdx_src_count_bindings(def, name) != 1)
        return NULL;
    find_assign f = {name, NULL, 0};
    tdx_src_walk((tdx_src_node *)def, assign_visit, &f);
    return f.n == 1 ? f.value : NULL;
}

static int is_arange(const tdx_src_module *m, const tdx_src_node *e, const tdx_src_node **size)
{
    long long z;
    if (!e || e->kind != TDX_SRC_CALL || tdx_src_call_nargs(e) != 2 || tdx_src_kid(e, TDX_SRC_R_KEYWORD))
        return 0;
    const char *fn = tdx_km_tl_name(tdx_src_call_func(e));
    if (!fn || strcmp(fn, "arange") != 0 || tdx_src_int_value(m, tdx_src_call_arg(e, 0), &z) != TDX_OK || z != 0)
        return 0;
    *size = tdx_src_call_arg(e, 1);
    return 1;
}

/* Non-zero when e reads a tl.arange, directly or through names bound once. */
static int has_arange(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *e, int depth)
{
    const tdx_src_node *size;
    if (!e || depth > MAX_DEPTH)
        return 0;
    if (is_arange(m, e, &size))
        return 1;
    if (e->kind == TDX_SRC_NAME) {
        const tdx_src_node *v = single_value(def, e->name);
        return v && has_arange(m, def, v, depth + 1);
    }
    for (size_t i = 0; i < e->nkids; i++)
        if (has_arange(m, def, e->kids[i], depth + 1))
            return 1;
    return 0;
}

/* Every name under e is bound at most once in def. */
static int stable_names(const tdx_src_node *def, const tdx_src_node *e)
{
    if (e->kind == TDX_SRC_NAME && tdx_src_count_bindings(def, e->name) > 1)
        return 0;
    for (size_t i = 0; i < e->nkids; i++)
        if (!stable_names(def, e->kids[i]))
            return 0;
    return 1;
}

/* A parameter of def that def never rebinds, or a literal. */
static int param_or_literal(const tdx_src_node *def, const tdx_src_node *e)
{
    if (e && e->kind == TDX_SRC_NUMBER)
        return 1;
    return e && e->kind == TDX_SRC_NAME && tdx_src_param(def, e->name) && tdx_src_count_bindings(def, e->name) == 0;
}

/* Split index expression e into OFF terms and the tl.arange size. */
static int index_of(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *e, tdx_km_tma_axis *a,
                    int depth)
{
    const tdx_src_node *size;
    if (!e || depth > MAX_DEPTH)
        return 0;
    if (is_arange(m, e, &size)) {
        if (a->size)
            return 0;
        a->size = size;
        return 1;
    }
    if (e->kind == TDX_SRC_NAME)
        return index_of(m, def, single_value(def, e->name), a, depth + 1);
    if (e->kind != TDX_SRC_BINOP || e->op != TDX_OP_PLUS)
        return 0;
    const tdx_src_node *side[2] = {tdx_src_kid(e, TDX_SRC_R_LEFT), tdx_src_kid(e, TDX_SRC_R_RIGHT)};
    for (int i = 0; i < 2; i++) {
        if (has_arange(m, def, side[i], 0)) {
            if (!index_of(m, def, side[i], a, depth + 1))
                return 0;
        } else {
            if (a->nterm == TDX_KM_TMA_MAX_TERMS || !side[i] || !stable_names(def, side[i]))
                return 0;
            a->term[a->nterm++] = side[i];
        }
    }
    return 1;
}

/* For x[:, None]: 0 (rows), x[None, :]: 1 (columns), with *inner x; else -1. */
static int expanded(const tdx_src_node *e, const tdx_src_node **inner)
{
    if (!e || e->kind != TDX_SRC_SUBSCRIPT)
        return -1;
    const tdx_src_node *ix = tdx_src_kid(e, TDX_SRC_R_INDEX);
    if (!ix || ix->kind != TDX_SRC_TUPLE || ix->nkids != 2)
        return -1;
    int slice0 = ix->kids[0]->kind == TDX_SRC_SLICE && ix->kids[0]->nkids == 0;
    int slice1 = ix->kids[1]->kind == TDX_SRC_SLICE && ix->kids[1]->nkids == 0;
    *inner = tdx_src_kid(e, TDX_SRC_R_VALUE);
    if (slice0 && tdx_km_is_const_named(ix->kids[1], "None"))
        return 0;
    if (slice1 && tdx_km_is_const_named(ix->kids[0], "None"))
        return 1;
    return -1;
}

/* Flatten a chain of binary op `op` into its operands. */
static int flatten(const tdx_src_node *e, int op, const tdx_src_node **out, size_t *n, size_t max)
{
    if (e && e->kind == TDX_SRC_BINOP && e->op == op)
        return flatten(tdx_src_kid(e, TDX_SRC_R_LEFT), op, out, n, max) &&
               flatten(tdx_src_kid(e, TDX_SRC_R_RIGHT), op, out, n, max);
    if (!e || *n == max)
        return 0;
    out[(*n)++] = e;
    return 1;
}

static int same_axis(const tdx_src_module *m, const tdx_km_tma_axis *a, const tdx_km_tma_axis *b)
{
    if (a->nterm != b->nterm || !tdx_src_same_text(m, a->size, b->size))
        return 0;
    for (size_t i = 0; i < a->nterm; i++)
        if (!tdx_src_same_text(m, a->term[i], b->term[i]))
            return 0;
    return 1;
}

/* Every name under e bound at most once in def, and then by a plain
 * assignment (not a loop's target, which changes each step). */
static int assigned_names(const tdx_src_node *def, const tdx_src_node *e)
{
    if (e->kind == TDX_SRC_NAME && tdx_src_count_bindings(def, e->name) && !single_value(def, e->name))
        return 0;
    for (size_t i = 0; i < e->nkids; i++)
        if (!assigned_names(def, e->kids[i]))
            return 0;
    return 1;
}

/* A lead term `I * S` (or `S * I`, or a name bound once to one): the base
 * moved by I steps of stride S. */
static int lead_term(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *e, tdx_km_tma_operand *o)
{
    if (e && e->kind == TDX_SRC_NAME && !tdx_src_param(def, e->name))
        e = single_value(def, e->name);
    if (!e || e->kind != TDX_SRC_BINOP || e->op != TDX_OP_STAR || o->lead_index)
        return 0;
    const tdx_src_node *side[2] = {tdx_src_kid(e, TDX_SRC_R_LEFT), tdx_src_kid(e, TDX_SRC_R_RIGHT)};
    for (int s = 1; s >= 0; s--) {
        const tdx_src_node *stride = side[s], *index = side[1 - s];
        if (param_or_literal(def, stride) && index && !has_arange(m, def, index, 0) && assigned_names(def, index)) {
            o->lead_index = index;
            o->lead_stride = stride;
            return 1;
        }
    }
    return 0;
}

/* P's one binding in def, when it is `P += LEAD` or `P = P + LEAD`, a
 * statement of def's own body before position before: the lead read. */
static int moved_base(const tdx_src_module *m, const tdx_src_node *def, const char *p, size_t before,
                      tdx_km_tma_operand *o)
{
    if (tdx_src_count_bindings(def, p) != 1)
        return 0;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s && s->start < before;
         s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        const tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (!tdx_src_is_name(tg, p) || tdx_src_count(s, TDX_SRC_R_TARGET) != 1)
            continue;
        if (s->kind == TDX_SRC_AUGASSIGN && s->op == TDX_OP_PLUS)
            return lead_term(m, def, v, o);
        if (s->kind == TDX_SRC_ASSIGN && v && v->kind == TDX_SRC_BINOP && v->op == TDX_OP_PLUS) {
            const tdx_src_node *l = tdx_src_kid(v, TDX_SRC_R_LEFT), *r = tdx_src_kid(v, TDX_SRC_R_RIGHT);
            return tdx_src_is_name(l, p) ? lead_term(m, def, r, o) : tdx_src_is_name(r, p) && lead_term(m, def, l, o);
        }
        return 0;
    }
    return 0;
}

/* The address: the pointer parameter, one term per axis, and at most one
 * lead term (here or in the base's one rebinding before the loop at
 * loop_start). */
static int address(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *ptr, size_t loop_start,
                   tdx_km_tma_operand *o)
{
    if (ptr && ptr->kind == TDX_SRC_NAME && !tdx_src_param(def, ptr->name))
        ptr = single_value(def, ptr->name);
    const tdx_src_node *terms[5];
    size_t n = 0;
    if (!flatten(ptr, TDX_OP_PLUS, terms, &n, 5) || n < 3)
        return 0;
    int seen[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const tdx_src_node *t = terms[i], *inner = NULL, *stride = NULL;
        int ax = expanded(t, &inner);
        if (ax < 0 && t->kind == TDX_SRC_BINOP && t->op == TDX_OP_STAR) {
            const tdx_src_node *l = tdx_src_kid(t, TDX_SRC_R_LEFT), *r = tdx_src_kid(t, TDX_SRC_R_RIGHT);
            if ((ax = expanded(l, &inner)) >= 0)
                stride = r;
            else if ((ax = expanded(r, &inner)) >= 0)
                stride = l;
            if (ax >= 0 && !param_or_literal(def, stride))
                return 0;
        }
        if (ax < 0) {
            if (t->kind == TDX_SRC_NAME && tdx_src_param(def, t->name) && !o->base) {
                if (tdx_src_count_bindings(def, t->name) != 0 && !moved_base(m, def, t->name, loop_start, o))
                    return 0;
                o->base = t->name;
            } else if (!lead_term(m, def, t, o)) {
                return 0;
            }
            continue;
        }
        if (seen[ax]++ || !index_of(m, def, inner, &o->axis[ax], 0) || !o->axis[ax].size ||
            !param_or_literal(def, o->axis[ax].size))
            return 0;
        o->axis[ax].stride = stride;
    }
    return o->base && seen[0] && seen[1];
}

/* The mask: `R[:, None] < B0` and `C[None, :] < B1`, in either order. */
static int bounds(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *mask, tdx_km_tma_operand *o)
{
    if (mask && mask->kind == TDX_SRC_NAME)
        mask = single_value(def, mask->name);
    const tdx_src_node *conj[2];
    size_t n = 0;
    if (!flatten(mask, TDX_OP_AMP, conj, &n, 2) || n != 2)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const tdx_src_node *c = conj[i], *idx, *inner = NULL;
        if (c->kind != TDX_SRC_COMPARE || c->nkids != 2 || (c->ops[0] != TDX_OP_LT && c->ops[0] != TDX_OP_GT))
            return 0;
        idx = c->ops[0] == TDX_OP_LT ? c->kids[0] : c->kids[1];
        const tdx_src_node *b = c->ops[0] == TDX_OP_LT ? c->kids[1] : c->kids[0];
        int ax = expanded(idx, &inner);
        tdx_km_tma_axis got = {0};
        if (ax < 0 || o->axis[ax].bound || !param_or_literal(def, b) || !index_of(m, def, inner, &got, 0) ||
            !same_axis(m, &got, &o->axis[ax]))
            return 0;
        o->axis[ax].bound = b;
    }
    return o->axis[0].bound && o->axis[1].bound;
}

static int zero_literal(const tdx_src_module *m, const tdx_src_node *e)
{
    double v;
    return e && e->kind == TDX_SRC_NUMBER && tdx_src_number_value(m, e, &v) == TDX_OK && v == 0.0;
}

/* The statement of loop L's body `name = tl.load(...)` read as an operand. */
static int operand(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *L, const char *name,
                   tdx_km_tma_operand *o)
{
    if (tdx_src_count_bindings(def, name) != 1)
        return 0;
    for (tdx_src_node *s = tdx_src_next(L, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(L, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN || tdx_src_count(s, TDX_SRC_R_TARGET) != 1 ||
            !tdx_src_is_name(tdx_src_kid(s, TDX_SRC_R_TARGET), name))
            continue;
        const tdx_src_node *c = tdx_src_kid(s, TDX_SRC_R_VALUE);
        const char *fn = c && c->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(c)) : NULL;
        if (!fn || strcmp(fn, "load") != 0 || tdx_src_call_nargs(c) != 1)
            return 0;
        for (tdx_src_node *k = tdx_src_next(c, TDX_SRC_R_KEYWORD, NULL); k; k = tdx_src_next(c, TDX_SRC_R_KEYWORD, k))
            if (!k->name || (strcmp(k->name, "mask") != 0 && strcmp(k->name, "other") != 0))
                return 0;
        const tdx_src_node *other = tdx_src_call_kwarg(c, "other");
        if (other && !zero_literal(m, other))
            return 0;
        memset(o, 0, sizeof *o);
        o->stmt = s;
        o->load = c;
        return address(m, def, tdx_src_call_arg(c, 0), L->start, o) &&
               bounds(m, def, tdx_src_call_kwarg(c, "mask"), o);
    }
    return 0;
}

/* The dot of `ACC += tl.dot(X, Y)` or `ACC = tl.dot(X, Y, ACC)`, or NULL. */
static const tdx_src_node *accumulated_dot(const tdx_src_node *s)
{
    const tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
    const char *fn = v && v->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(v)) : NULL;
    if (!tdx_src_is_name(tg, NULL) || !fn || strcmp(fn, "dot") != 0)
        return NULL;
    if (s->kind == TDX_SRC_AUGASSIGN && s->op == TDX_OP_PLUS)
        return v;
    const tdx_src_node *acc = tdx_src_call_arg(v, 2);
    if (!acc)
        acc = tdx_src_call_kwarg(v, "acc");
    return s->kind == TDX_SRC_ASSIGN && tdx_src_is_name(acc, tg->name) ? v : NULL;
}

typedef struct walk {
    const tdx_src_module *m;
    const tdx_src_node *def;
    tdx_km_tma *out;
    size_t n, max;
} walk;

static int for_visit(tdx_src_node *L, void *ud)
{
    walk *w = ud;
    if (L->kind != TDX_SRC_FOR || w->n == w->max)
        return 0;
    for (tdx_src_node *s = tdx_src_next(L, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(L, TDX_SRC_R_BODY, s)) {
        const tdx_src_node *dot = accumulated_dot(s);
        const tdx_src_node *x = dot ? tdx_src_call_arg(dot, 0) : NULL, *y = dot ? tdx_src_call_arg(dot, 1) : NULL;
        if (!x || !y || !x->name || !y->name || !tdx_src_is_name(x, NULL) || !tdx_src_is_name(y, NULL) ||
            strcmp(x->name, y->name) == 0)
            continue;
        tdx_km_tma *t = &w->out[w->n];
        memset(t, 0, sizeof *t);
        t->loop = L;
        t->dot = dot;
        if (operand(w->m, w->def, L, x->name, &t->op[0]) && operand(w->m, w->def, L, y->name, &t->op[1]) &&
            t->op[0].stmt->start < s->start && t->op[1].stmt->start < s->start) {
            w->n++;
            break;
        }
    }
    return 0;
}

size_t tdx_km_tma_loads(const tdx_src_module *m, const tdx_src_node *def, tdx_km_tma *out, size_t max)
{
    walk w = {m, def, out, 0, max};
    if (def && max)
        tdx_src_walk((tdx_src_node *)def, for_visit, &w);
    return w.n;
}
