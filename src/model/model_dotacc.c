/* Outer products accumulated one rank-1 update at a time.
 *
 *     acc = tl.zeros((R, BLOCK), dtype=tl.float32)
 *     for ci in range(0, C_in):
 *         for kk in range(0, K):
 *             w = tl.load(w_ptr + co * C_in * K + ci * K + kk, mask=live)    # co: [R, 1]
 *             x = tl.load(x_ptr + ci * L + offs + kk, mask=mask, other=0.0)  # offs: [BLOCK]
 *             acc += w * x
 *
 * Each iteration of the loop over ci adds the outer product of an R-long
 * column and a BLOCK-long row: over the whole loop acc += W[R, C_in] @
 * X[C_in, BLOCK] (for each kk), a matrix product the kernel computes with
 * one load of R weights and BLOCK inputs per R x BLOCK multiply-adds, every
 * thread waiting on both. Taken 16 values of ci at a time, the same sum is
 * tl.dot of an [R, 16] and a [16, BLOCK] tile: Triton blocks both operands
 * in registers (an FMA dot for fp32 with input_precision="ieee", the same
 * fp32 products and sums in another order), and each loaded value serves
 * R or BLOCK multiply-adds.
 *
 * Recognised here so that the dot-accumulate family (which rewrites the
 * loop) and rule TDX024 (which reports it) see the same loops. */
#include <string.h>

#include "model/model_ctx.h"

/* The FUNCDEF enclosing n, or NULL. */
static const tdx_src_node *def_of(const tdx_src_node *n)
{
    for (n = n ? n->parent : NULL; n; n = n->parent)
        if (n->kind == TDX_SRC_FUNCDEF)
            return n;
    return NULL;
}

static int inside(const tdx_src_node *n, const tdx_src_node *outer)
{
    return n && outer && n->start >= outer->start && n->end <= outer->end;
}

/* A tile size: an integer literal, or a constexpr parameter of k never
 * rebound in it, at k's first launch that gives it (or its default). */
static int size_value(const tdx_km_file *f, const tdx_km_kernel *k, const tdx_src_node *e, long long *v)
{
    if (!e)
        return 0;
    if (e->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(f->mod, e, v) == TDX_OK;
    const tdx_km_param *p = tdx_src_is_name(e, NULL) ? tdx_km_param_find(k, e->name) : NULL;
    if (!p || p->kind != TDX_KM_PARAM_CONSTEXPR || tdx_src_count_bindings(k->def, e->name))
        return 0;
    const tdx_src_node *where = NULL;
    for (size_t j = 0; j < k->launches.len; j++)
        if (tdx_km_launch_constexpr(f, k->launches.items[j], e->name, v, &where))
            return 1;
    if (p->has_default_value) {
        *v = p->default_value;
        return 1;
    }
    return 0;
}

static int pow2_16(long long v)
{
    return v >= 16 && v <= 4096 && (v & (v - 1)) == 0;
}

/* An axis of a folded value that no tl.arange feeds (a None axis). */
static int empty_axis(const tdx_km_axis *a)
{
    return a->mult == TDX_KM_MULT_NONE && !a->size;
}

/* The access of k made by call, or NULL. */
static const tdx_km_access *access_of(const tdx_km_kernel *k, const tdx_src_node *call)
{
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->call == call)
            return a;
    }
    return NULL;
}

/* `other` absent, or an integer or float literal zero. */
static int zero_other(const tdx_src_module *m, const tdx_km_access *a)
{
    double d;
    return !a->other || (a->other->kind == TDX_SRC_NUMBER && tdx_src_number_value(m, a->other, &d) == TDX_OK &&
                         d == 0.0);
}

/* The load `name = tl.load(...)` that binds name in block (the update's
 * parent) before stmt, when name is bound once in the kernel and read only
 * by stmt within loop. */
static const tdx_km_access *operand(const tdx_km_kernel *k, const tdx_src_node *stmt, const tdx_src_node *loop,
                                    const tdx_src_node *name)
{
    if (!tdx_src_is_name(name, NULL) || tdx_src_count_bindings(k->def, name->name) != 1 ||
        tdx_src_count_name(loop, name->name) != 2 || tdx_src_count_name(k->def, name->name) != 2)
        return NULL;
    for (const tdx_src_node *s = tdx_src_next(stmt->parent, stmt->role, NULL); s && s != stmt;
         s = tdx_src_next(stmt->parent, stmt->role, s)) {
        const tdx_src_node *tg = s->kind == TDX_SRC_ASSIGN ? tdx_src_kid(s, TDX_SRC_R_TARGET) : NULL;
        if (!tdx_src_is_name(tg, name->name))
            continue;
        const tdx_src_node *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (tdx_src_next(s, TDX_SRC_R_TARGET, tg) || !v || v->kind != TDX_SRC_CALL ||
            !tdx_src_is_dotted(tdx_src_call_func(v), "tl.load"))
            return NULL;
        const tdx_km_access *a = access_of(k, v);
        return a && a->kind == TDX_KM_LOAD && a->ptr && !a->helper ? a : NULL;
    }
    return NULL;
}

/* The column [R, 1]: a 2-D address whose last axis is a None axis, its mask
 * none, a scalar, or [R, 1] too. */
static int column(const tdx_km_access *a)
{
    const tdx_km_val *p = &a->addr, *mk = &a->maskv;
    return p->rank == 2 && empty_axis(&p->axis[0]) && !empty_axis(&p->axis[1]) &&
           !(p->flags & TDX_KM_V_INDIRECT) && (mk->rank == 0 || (mk->rank == 2 && empty_axis(&mk->axis[0])));
}

/* The row: a 1-D address, its mask none or at most 1-D. */
static int row(const tdx_km_access *a)
{
    const tdx_km_val *p = &a->addr;
    return p->rank == 1 && !empty_axis(&p->axis[0]) && !(p->flags & TDX_KM_V_INDIRECT) && a->maskv.rank <= 1;
}

typedef struct bound_names {
    const tdx_src_node *expr;
    int hit;
} bound_names;

static int bound_visit(tdx_src_node *n, void *ud)
{
    bound_names *b = ud;
    if (tdx_src_is_bound_name(n) && tdx_src_count_name(b->expr, n->name))
        b->hit = 1;
    return b->hit ? -1 : 0;
}

/* Non-zero when expr reads a name that loop binds (its target included). */
static int reads_bound(const tdx_src_node *loop, const tdx_src_node *expr)
{
    bound_names b = {expr, 0};
    tdx_src_walk((tdx_src_node *)loop, bound_visit, &b);
    return b.hit;
}

/* The update ACC += X * Y (or ACC = ACC + X * Y) in loop, with the plan
 * filled in, or 0. */
static int match(const tdx_km_file *f, const tdx_km_kernel *k, const tdx_km_loop *L, const tdx_src_node *stmt,
                 tdx_km_dotacc *d)
{
    const tdx_src_module *m = f->mod;
    tdx_km_update_op op;
    const tdx_src_node *e = NULL;
    const char *acc = tdx_km_update_of(stmt, &op, &e);
    if (!acc || op != TDX_KM_UPDATE_SUM || !e || e->kind != TDX_SRC_BINOP || e->op != TDX_OP_STAR)
        return 0;
    const tdx_src_node *loop = L->node;
    if (tdx_src_count_name(loop, acc) != (stmt->kind == TDX_SRC_AUGASSIGN ? 1 : 2))
        return 0;
    int found = 0;
    const tdx_src_node *init = tdx_km_binding_of(k->def, acc, loop, &found);
    const tdx_src_node *fn = init ? tdx_src_call_func(init) : NULL;
    const tdx_src_node *shape = fn ? tdx_src_call_arg(init, 0) : NULL;
    const tdx_src_node *dtype = fn ? tdx_src_call_kwarg(init, "dtype") : NULL;
    if (!dtype && fn)
        dtype = tdx_src_call_arg(init, 1);
    if (!found || !fn || !tdx_src_is_dotted(fn, "tl.zeros") || !shape ||
        (shape->kind != TDX_SRC_TUPLE && shape->kind != TDX_SRC_LIST) || tdx_src_count(shape, TDX_SRC_R_ELT) != 2 ||
        !dtype || !tdx_src_is_dotted(dtype, "tl.float32"))
        return 0;
    const tdx_km_access *a = operand(k, stmt, loop, tdx_src_kid(e, TDX_SRC_R_LEFT));
    const tdx_km_access *b = operand(k, stmt, loop, tdx_src_kid(e, TDX_SRC_R_RIGHT));
    if (!a || !b)
        return 0;
    const tdx_km_access *col = column(a) && row(b) ? a : column(b) && row(a) ? b : NULL;
    const tdx_km_access *rw = col == a ? b : a;
    if (!col || !zero_other(m, col) || !zero_other(m, rw))
        return 0;
    /* V: in both addresses, nowhere else in the loop, bound only by it */
    const char *v = L->var;
    int in_col = tdx_src_count_name(col->ptr, v), in_row = tdx_src_count_name(rw->ptr, v);
    if (!in_col || !in_row || tdx_src_count_name(loop, v) != 1 + in_col + in_row ||
        tdx_src_count_name(k->def, v) != tdx_src_count_name(loop, v) || tdx_src_count_bindings(k->def, v) != 1)
        return 0;
    /* the accumulator's sizes are the column's and the row's tiles */
    const tdx_src_node *s0 = tdx_src_kid(shape, TDX_SRC_R_ELT), *s1 = tdx_src_next(shape, TDX_SRC_R_ELT, s0);
    const tdx_src_node *rs = col->addr.axis[1].size, *cs = rw->addr.axis[0].size;
    size_t l0, l1, lr, lc;
    const char *t0 = tdx_src_text(m, s0, &l0), *t1 = tdx_src_text(m, s1, &l1);
    const char *tr = rs ? tdx_src_text(m, rs, &lr) : NULL, *tc = cs ? tdx_src_text(m, cs, &lc) : NULL;
    if (!tr || !tc || l0 != lr || memcmp(t0, tr, l0) != 0 || l1 != lc || memcmp(t1, tc, l1) != 0)
        return 0;
    long long R = 0, C = 0;
    if (!size_value(f, k, s0, &R) || !size_value(f, k, s1, &C) || !pow2_16(R) || !pow2_16(C))
        return 0;
    *d = (tdx_km_dotacc){loop, v, L->stop, stmt, e, acc, col, rw, R, C};
    return 1;
}

typedef struct updates {
    const tdx_src_node *v[16];
    size_t n;
} updates;

static int update_visit(tdx_src_node *n, void *ud)
{
    updates *u = ud;
    if ((n->kind == TDX_SRC_AUGASSIGN || n->kind == TDX_SRC_ASSIGN) && u->n < 16)
        u->v[u->n++] = n;
    return n->kind == TDX_SRC_FUNCDEF || n->kind == TDX_SRC_LAMBDA ? 1 : 0;
}

size_t tdx_km_dot_accumulable(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_dotacc *out, size_t max)
{
    size_t n = 0;
    if (!f || !k || k->is_helper || k->helpers.len || tdx_km_input_bytes(f) != 4)
        return 0;
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind == TDX_KM_OP_DOT || op->kind == TDX_KM_OP_HELPER)
            return 0;
    }
    /* loops in source order: an outer loop comes before the loops it holds */
    for (size_t i = 0; i < k->loops.len && n < max; i++) {
        const tdx_km_loop *L = k->loops.items[i];
        const tdx_src_node *loop = L->node;
        long long lo = 0, hi = 0;
        if (L->kind != TDX_KM_LOOP_RANGE || !L->var || !L->stop || !L->step_is_one || !loop ||
            loop->kind != TDX_SRC_FOR || def_of(loop) != k->def || tdx_src_kid(loop, TDX_SRC_R_ORELSE) ||
            (L->start && (tdx_src_int_value(f->mod, L->start, &lo) != TDX_OK || lo != 0)) ||
            (tdx_src_int_value(f->mod, L->stop, &hi) == TDX_OK && hi < 16) || reads_bound(loop, L->stop))
            continue;
        /* one matching update per loop, in a loop not already taken */
        int taken = 0;
        for (size_t j = 0; j < n && !taken; j++)
            taken = inside(loop, out[j].loop) || inside(out[j].loop, loop);
        if (taken)
            continue;
        updates u = {{0}, 0};
        tdx_src_walk((tdx_src_node *)loop, update_visit, &u);
        for (size_t j = 0; j < u.n && n < max; j++)
            if (match(f, k, L, u.v[j], &out[n])) {
                n++;
                break;
            }
    }
    return n;
}
