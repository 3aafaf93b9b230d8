/* Loops that mask every block though only their last blocks need it.
 *
 *     for start_n in range(0, hi, BLOCK_N):
 *         offs_n = start_n + tl.arange(0, BLOCK_N)
 *         k = tl.load(..., mask=offs_n[:, None] < S, other=0.0)
 *         qk = tl.where((offs_n[None, :] < S) & (offs_m[:, None] >= offs_n[None, :]), qk, -inf)
 *
 * Every block pays the comparisons, the selects and the masked loads,
 * though the condition is true for every element of a block that ends at
 * or before S (and, for the causal comparison against the rows
 * offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M), before pid_m * BLOCK_M).
 * Each conjunct of a mask is one of
 *
 *     O < X, X > O                  true on the block when start + STEP <= X
 *     R >= O, R > O, O <= R, O < R  true when start + STEP <= P
 *
 * with O = start + tl.arange(0, STEP) assigned in the loop's body (once, and
 * read bare or indexed with None / : only), R = P + tl.arange(0, K)
 * assigned once in the kernel outside the loop, X and P naming nothing the
 * loop assigns, and P naming nothing bound twice in the kernel (it is read
 * again just before the loop). A mask written as a name assigned once in the loop's body
 * counts as its value. The blocks before the least of the bounds and the
 * loop's end need no mask: the peel-masks family runs them in a loop of
 * their own without it, and the original loop takes the rest; rule TDX022
 * reports the same loops. */
#include <string.h>

#include "model/model_ctx.h"
#include "model/model_int.h"

typedef struct mention {
    const tdx_km_names *s;
    int hit;
} mention;

static int mention_visit(tdx_src_node *n, void *ud)
{
    mention *m = ud;
    for (size_t i = 0; tdx_src_is_name(n, NULL) && i < m->s->n && !m->hit; i++)
        m->hit = strcmp(n->name, m->s->v[i]) == 0;
    return m->hit ? -1 : 0;
}

/* Non-zero when e reads nothing the loop assigns (a call's value may change
 * from one block to the next only through its arguments: tl.program_id,
 * tl.minimum are pure). */
static int invariant(const tdx_src_node *e, const tdx_km_names *assigned)
{
    if (assigned->full)
        return 0;
    mention m = {assigned, 0};
    tdx_src_walk((tdx_src_node *)e, mention_visit, &m);
    return !m.hit;
}

/* The one `name = value` statement under n, or NULL. */
typedef struct find_assign {
    const char *name;
    const tdx_src_node *stmt;
} find_assign;

static int find_visit(tdx_src_node *n, void *ud)
{
    find_assign *f = ud;
    if (n->kind == TDX_SRC_ASSIGN && tdx_src_count(n, TDX_SRC_R_TARGET) == 1 &&
        tdx_src_is_name(tdx_src_kid(n, TDX_SRC_R_TARGET), f->name)) {
        f->stmt = n;
        return -1;
    }
    return 0;
}

static const tdx_src_node *assignment(const tdx_src_node *n, const char *name)
{
    find_assign f = {name, NULL};
    tdx_src_walk((tdx_src_node *)n, find_visit, &f);
    return f.stmt;
}

/* `a + tl.arange(0, size)` or `tl.arange(0, size) + a`: a, with *size set;
 * NULL for anything else. */
static const tdx_src_node *plus_arange(const tdx_src_module *m, const tdx_src_node *e, const tdx_src_node **size)
{
    if (!e || e->kind != TDX_SRC_BINOP || e->op != TDX_OP_PLUS)
        return NULL;
    const tdx_src_node *l = tdx_src_kid(e, TDX_SRC_R_LEFT), *r = tdx_src_kid(e, TDX_SRC_R_RIGHT);
    for (int side = 0; side < 2; side++) {
        const tdx_src_node *a = side ? l : r, *other = side ? r : l;
        if (!a || a->kind != TDX_SRC_CALL || tdx_src_call_nargs(a) != 2 || tdx_src_kid(a, TDX_SRC_R_KEYWORD))
            continue;
        const char *fn = tdx_km_tl_name(tdx_src_call_func(a));
        long long z;
        if (!fn || strcmp(fn, "arange") != 0 || tdx_src_int_value(m, tdx_src_call_arg(a, 0), &z) != TDX_OK || z != 0)
            continue;
        *size = tdx_src_call_arg(a, 1);
        return other;
    }
    return NULL;
}

/* n is the name `name`, bare or indexed with None and `:` only. */
static int name_ref(const tdx_src_node *n, const char *name)
{
    if (n && n->kind == TDX_SRC_SUBSCRIPT) {
        const tdx_src_node *ix = tdx_src_kid(n, TDX_SRC_R_INDEX);
        if (!ix)
            return 0;
        if (ix->kind == TDX_SRC_TUPLE) {
            for (size_t i = 0; i < ix->nkids; i++) {
                const tdx_src_node *x = ix->kids[i];
                if (!(x->kind == TDX_SRC_SLICE && x->nkids == 0) && !tdx_km_is_const_named(x, "None"))
                    return 0;
            }
        } else if (!(ix->kind == TDX_SRC_SLICE && ix->nkids == 0) && !tdx_km_is_const_named(ix, "None")) {
            return 0;
        }
        n = tdx_src_kid(n, TDX_SRC_R_VALUE);
    }
    return tdx_src_is_name(n, name);
}

typedef struct ctx {
    const tdx_src_module *m;
    const tdx_src_node *def, *loop;
    const char *offs[4]; /* O: start + tl.arange(0, STEP) in the loop's body */
    size_t noffs;
    tdx_km_names assigned;      /* what the loop binds, its target included */
    const tdx_src_node *bound[TDX_KM_PEEL_MAX_BOUNDS];
    size_t nbound;
} ctx;

static int is_offs(const ctx *c, const tdx_src_node *n)
{
    for (size_t i = 0; i < c->noffs; i++)
        if (name_ref(n, c->offs[i]))
            return 1;
    return 0;
}

/* n refers to R = P + tl.arange(0, K), bound once in the kernel and not in
 * the loop, P invariant: P, else NULL. */
static const tdx_src_node *rows_start(const ctx *c, const tdx_src_node *n)
{
    if (n && n->kind == TDX_SRC_SUBSCRIPT) {
        const tdx_src_node *v = tdx_src_kid(n, TDX_SRC_R_VALUE);
        if (!tdx_src_is_name(v, NULL) || !name_ref(n, v->name))
            return NULL;
        n = v;
    }
    if (!n || !tdx_src_is_name(n, NULL) || tdx_src_count_bindings(c->def, n->name) != 1 || tdx_src_count_bindings(c->loop, n->name) != 0)
        return NULL;
    const tdx_src_node *a = assignment(c->def, n->name), *size = NULL;
    const tdx_src_node *p = a ? plus_arange(c->m, tdx_src_kid(a, TDX_SRC_R_VALUE), &size) : NULL;
    /* P is read again before the loop: every name in it bound at most once
     * in the kernel, so that it still means what it meant for R */
    tdx_km_names in_p = {{0}, 0, 0};
    if (p)
        tdx_src_walk((tdx_src_node *)p, tdx_km_name_visit, &in_p);
    for (size_t i = 0; p && i < in_p.n; i++)
        if (tdx_src_count_bindings(c->def, in_p.v[i]) > 1)
            return NULL;
    return p && !in_p.full && invariant(p, &c->assigned) ? p : NULL;
}

static int add_bound(const ctx *c, const tdx_src_node **b, size_t *nb, const tdx_src_node *x)
{
    for (size_t i = 0; i < *nb; i++)
        if (tdx_src_same_text(c->m, b[i], x))
            return 1;
    if (*nb >= TDX_KM_PEEL_MAX_BOUNDS)
        return 0;
    b[(*nb)++] = x;
    return 1;
}

/* One conjunct; its bound appended to b. */
static int term(const ctx *c, const tdx_src_node *e, const tdx_src_node **b, size_t *nb, int *diag)
{
    if (!e || e->kind != TDX_SRC_COMPARE || e->nkids != 2 || !e->ops)
        return 0;
    const tdx_src_node *l = e->kids[0], *r = e->kids[1];
    int op = e->ops[0];
    /* O < X, X > O */
    if (op == TDX_OP_LT && is_offs(c, l) && invariant(r, &c->assigned))
        return add_bound(c, b, nb, r);
    if (op == TDX_OP_GT && is_offs(c, r) && invariant(l, &c->assigned))
        return add_bound(c, b, nb, l);
    /* R >= O, R > O, O <= R, O < R */
    const tdx_src_node *p = NULL;
    if ((op == TDX_OP_GE || op == TDX_OP_GT) && is_offs(c, r))
        p = rows_start(c, l);
    else if ((op == TDX_OP_LE || op == TDX_OP_LT) && is_offs(c, l))
        p = rows_start(c, r);
    if (!p)
        return 0;
    *diag = 1;
    return add_bound(c, b, nb, p);
}

/* A conjunction of terms, or a name bound once in the loop's body (and
 * nowhere else in the kernel) to one. */
static int cond(const ctx *c, const tdx_src_node *e, const tdx_src_node **b, size_t *nb, int *diag, int depth)
{
    if (!e || depth > 32)
        return 0;
    if (e->kind == TDX_SRC_BINOP && e->op == TDX_OP_AMP)
        return cond(c, tdx_src_kid(e, TDX_SRC_R_LEFT), b, nb, diag, depth + 1) &&
               cond(c, tdx_src_kid(e, TDX_SRC_R_RIGHT), b, nb, diag, depth + 1);
    if (tdx_src_is_name(e, NULL)) {
        const tdx_src_node *a = assignment(c->loop, e->name);
        if (!a || a->parent != c->loop || tdx_src_count_bindings(c->def, e->name) != 1 || a->start > e->start)
            return 0;
        return cond(c, tdx_src_kid(a, TDX_SRC_R_VALUE), b, nb, diag, depth + 1);
    }
    return term(c, e, b, nb, diag);
}

typedef struct sites {
    ctx *c;
    tdx_km_peel *p;
} sites;

static int site_visit(tdx_src_node *n, void *ud)
{
    sites *s = ud;
    if (n->kind != TDX_SRC_CALL)
        return 0;
    const char *fn = tdx_km_tl_name(tdx_src_call_func(n));
    const tdx_src_node *mask = NULL;
    if (fn && (strcmp(fn, "load") == 0 || strcmp(fn, "store") == 0))
        mask = tdx_src_call_kwarg(n, "mask");
    else if (fn && strcmp(fn, "where") == 0 && tdx_src_call_nargs(n) == 3 && !tdx_src_kid(n, TDX_SRC_R_KEYWORD))
        mask = tdx_src_call_arg(n, 0);
    if (!mask || s->p->nsite >= TDX_KM_PEEL_MAX_SITES)
        return 0;
    const tdx_src_node *b[TDX_KM_PEEL_MAX_BOUNDS];
    size_t nb = s->c->nbound;
    memcpy(b, s->c->bound, nb * sizeof b[0]);
    int diag = 0;
    if (!cond(s->c, mask, b, &nb, &diag, 0))
        return 0;
    memcpy(s->c->bound, b, nb * sizeof b[0]);
    s->c->nbound = nb;
    s->p->diagonal |= diag;
    s->p->site[s->p->nsite++] = n;
    return 0;
}

static int match_loop(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *L, tdx_km_peel *p)
{
    const tdx_src_node *it = tdx_src_kid(L, TDX_SRC_R_ITER), *var = tdx_src_kid(L, TDX_SRC_R_TARGET);
    if (!it || it->kind != TDX_SRC_CALL || tdx_src_call_nargs(it) != 3 || !tdx_src_is_name(var, NULL) ||
        tdx_src_kid(L, TDX_SRC_R_ORELSE))
        return 0;
    const char *fn = tdx_km_tl_name(tdx_src_call_func(it));
    if (!tdx_src_is_dotted(tdx_src_call_func(it), "range") && !(fn && strcmp(fn, "range") == 0))
        return 0;
    ctx c;
    memset(&c, 0, sizeof c);
    c.m = m;
    c.def = def;
    c.loop = L;
    tdx_src_walk((tdx_src_node *)L, tdx_km_bound_visit, &c.assigned);
    memset(p, 0, sizeof *p);
    p->loop = L;
    p->lo = tdx_src_call_arg(it, 0);
    p->hi = tdx_src_call_arg(it, 1);
    p->step = tdx_src_call_arg(it, 2);
    if (!invariant(p->lo, &c.assigned) || !invariant(p->hi, &c.assigned) || !invariant(p->step, &c.assigned))
        return 0;
    /* O = start + tl.arange(0, STEP), directly in the body, bound once in the kernel */
    for (tdx_src_node *s = tdx_src_next(L, TDX_SRC_R_BODY, NULL); s && c.noffs < 4;
         s = tdx_src_next(L, TDX_SRC_R_BODY, s)) {
        const tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *size = NULL;
        if (s->kind != TDX_SRC_ASSIGN || tdx_src_count(s, TDX_SRC_R_TARGET) != 1 || !tdx_src_is_name(tg, NULL))
            continue;
        const tdx_src_node *a = plus_arange(m, tdx_src_kid(s, TDX_SRC_R_VALUE), &size);
        if (a && tdx_src_is_name(a, var->name) && tdx_src_same_text(m, size, p->step) && tdx_src_count_bindings(def, tg->name) == 1)
            c.offs[c.noffs++] = tg->name;
    }
    if (!c.noffs)
        return 0;
    sites s = {&c, p};
    tdx_src_walk((tdx_src_node *)L, site_visit, &s);
    if (!p->nsite || !c.nbound)
        return 0;
    memcpy(p->bound, c.bound, c.nbound * sizeof c.bound[0]);
    p->nbound = c.nbound;
    return 1;
}

typedef struct fors {
    const tdx_src_node *v[64];
    size_t n;
} fors;

static int for_visit(tdx_src_node *n, void *ud)
{
    fors *f = ud;
    if (n->kind == TDX_SRC_FOR && f->n < 64)
        f->v[f->n++] = n;
    return 0;
}

size_t tdx_km_peelable(const tdx_src_module *m, const tdx_src_node *def, tdx_km_peel *out, size_t max)
{
    fors f;
    f.n = 0;
    tdx_src_walk((tdx_src_node *)def, for_visit, &f);
    size_t n = 0;
    for (size_t i = 0; i < f.n && n < max; i++)
        n += (size_t)match_loop(m, def, f.v[i], &out[n]);
    return n;
}
