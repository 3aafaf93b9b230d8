/* The value algebra of kernel folding: how tl.arange offsets combine under
 * +, *, //, % and subscripts into per-axis strides, and which flags (loaded,
 * reduced, dotted, epilogue ...) a result inherits from its operands. */
#include <limits.h>
#include <string.h>

#include "model/model_ctx.h"

// The empty value: a scalar we know nothing about.
tdx_km_val tdx_km_v_none(void)
{
    tdx_km_val v;
    memset(&v, 0, sizeof v);
    return v;
}

// A known integer.
tdx_km_val tdx_km_v_const(long long x)
{
    tdx_km_val v = tdx_km_v_none();
    v.flags = TDX_KM_V_CONST | TDX_KM_V_CONSTEXPR;
    v.ival = x;
    return v;
}

// Flags that survive any arithmetic combination.
#define STICKY                                                                                    \
    (TDX_KM_V_ARANGE | TDX_KM_V_DATA | TDX_KM_V_PID | TDX_KM_V_RUNTIME | TDX_KM_V_DOT |           \
     TDX_KM_V_EPI | TDX_KM_V_REDUCED | TDX_KM_V_EXPANDED | TDX_KM_V_WINDOW | TDX_KM_V_HALF |       \
     TDX_KM_V_INT64 | TDX_KM_V_ZEROS | TDX_KM_V_PROD3)

// Element-wise merge of two values: broadcast ranks, union of dependencies.
tdx_km_val tdx_km_merge(const tdx_km_val *a, const tdx_km_val *b)
{
    tdx_km_val v = tdx_km_v_none();
    v.flags = (a->flags | b->flags) & STICKY;
    if ((a->flags & TDX_KM_V_CONSTEXPR) && (b->flags & TDX_KM_V_CONSTEXPR))
        v.flags |= TDX_KM_V_CONSTEXPR;
    v.rank = a->rank > b->rank ? a->rank : b->rank;
    for (int i = 0; i < TDX_KM_MAXRANK; i++) {
        const tdx_km_axis *x = &a->axis[i], *y = &b->axis[i];
        if (x->mult == TDX_KM_MULT_NONE)
            v.axis[i] = *y;
        else if (y->mult == TDX_KM_MULT_NONE)
            v.axis[i] = *x;
        else
            v.axis[i] = (y->mult == TDX_KM_MULT_UNIT && x->mult != TDX_KM_MULT_UNIT) ? *y : *x;
        if (!v.axis[i].size)
            v.axis[i].size = x->size ? x->size : y->size;
    }
    v.loops = a->loops | b->loops;
    v.pids = a->pids | b->pids;
    v.win = a->win | b->win;
    return v;
}

// Non-zero when some axis of v is fed by a tl.arange.
int tdx_km_has_axes(const tdx_km_val *v)
{
    for (int i = 0; i < TDX_KM_MAXRANK; i++)
        if (v->axis[i].mult != TDX_KM_MULT_NONE)
            return 1;
    return 0;
}

// A DOT value combined with anything but another product or the zero
// accumulator becomes an epilogue.
void tdx_km_mark_epilogue(tdx_km_val *r, const tdx_km_val *a, const tdx_km_val *b)
{
    int ad = (a->flags & TDX_KM_V_DOT) != 0, bd = (b->flags & TDX_KM_V_DOT) != 0;
    if (!ad && !bd)
        return;
    const tdx_km_val *other = ad ? b : a;
    if (ad && bd)
        return;
    if (other->flags & (TDX_KM_V_ZEROS | TDX_KM_V_DOT))
        return;
    r->flags |= TDX_KM_V_EPI;
}

// Scale the offset axes of t by the scalar s (an address `offs * stride`).
static void scale_axes(tdx_km_val *r, const tdx_km_val *t, const tdx_km_val *s)
{
    for (int i = 0; i < TDX_KM_MAXRANK; i++) {
        tdx_km_axis *ax = &r->axis[i];
        *ax = t->axis[i];
        if (ax->mult == TDX_KM_MULT_NONE)
            continue;
        if (s->flags & TDX_KM_V_CONST) {
            if (s->ival == 1)
                continue;
            if (ax->mult == TDX_KM_MULT_UNIT) {
                ax->mult = TDX_KM_MULT_CONST;
                ax->mult_const = s->ival;
            } else if (ax->mult == TDX_KM_MULT_CONST) {
                if (__builtin_mul_overflow(ax->mult_const, s->ival, &ax->mult_const))
                    ax->mult = TDX_KM_MULT_OTHER; /* past a long long: some other factor */
            } else {
                ax->mult = TDX_KM_MULT_OTHER;
            }
        } else if (s->param && ax->mult == TDX_KM_MULT_UNIT &&
                   !(s->flags & (TDX_KM_V_PID | TDX_KM_V_DATA | TDX_KM_V_ARANGE))) {
            ax->mult = TDX_KM_MULT_PARAM;
            ax->mult_param = s->param;
        } else {
            ax->mult = TDX_KM_MULT_OTHER;
        }
    }
}

// x_ptr, xPtr: named like a pointer.
static int looks_like_pointer(const char *name)
{
    size_t n = strlen(name);
    return (n >= 3 && (strcmp(name + n - 3, "ptr") == 0 || strcmp(name + n - 3, "Ptr") == 0)) ||
           (n >= 4 && strcmp(name + n - 4, "_ptr") == 0);
}

// Fold a binary operator.
tdx_km_val tdx_km_binop(tdx_km_ctx *c, int op, const tdx_km_val *l, const tdx_km_val *r)
{
    tdx_km_val v = tdx_km_merge(l, r);
    int both_const = (l->flags & TDX_KM_V_CONST) && (r->flags & TDX_KM_V_CONST);
    long long a = l->ival, b = r->ival;
    switch (op) {
    case TDX_OP_PLUS:
    case TDX_OP_MINUS:
        if (both_const && !(op == TDX_OP_PLUS ? __builtin_add_overflow(a, b, &v.ival)
                                               : __builtin_sub_overflow(a, b, &v.ival)))
            v.flags |= TDX_KM_V_CONST; /* past a long long: not a known constant */
        if (l->base)
            v.base = l->base;
        else if (r->base && op == TDX_OP_PLUS)
            v.base = r->base;
        else if (op == TDX_OP_PLUS && l->param && r->param)
            v.base = looks_like_pointer(r->param) && !looks_like_pointer(l->param) ? r->param
                                                                                     : l->param;
        else if (l->param && !l->rank)
            v.base = l->param;
        else if (op == TDX_OP_PLUS && r->param && !r->rank)
            v.base = r->param;
        /* pid * BLOCK + tl.arange(...): that program_id axis tiles the data */
        if ((l->flags & TDX_KM_V_ARANGE) && tdx_km_has_axes(l) && !tdx_km_has_axes(r) && !r->base)
            c->k->pid_tiled |= r->pids;
        if ((r->flags & TDX_KM_V_ARANGE) && tdx_km_has_axes(r) && !tdx_km_has_axes(l) && !l->base)
            c->k->pid_tiled |= l->pids;
        /* offs + k with k a step-1 loop variable: a sliding window */
        if (((l->flags & TDX_KM_V_ARANGE) && r->win) || ((r->flags & TDX_KM_V_ARANGE) && l->win))
            v.flags |= TDX_KM_V_WINDOW;
        tdx_km_mark_epilogue(&v, l, r);
        if ((l->flags & TDX_KM_V_DOT) && (r->flags & TDX_KM_V_DOT))
            v.flags |= TDX_KM_V_DOT;
        break;
    case TDX_OP_STAR: {
        if (both_const && !__builtin_mul_overflow(a, b, &v.ival))
            v.flags |= TDX_KM_V_CONST;
        int la = tdx_km_has_axes(l) && !(l->flags & TDX_KM_V_DATA);
        int ra = tdx_km_has_axes(r) && !(r->flags & TDX_KM_V_DATA);
        if (la && !tdx_km_has_axes(r))
            scale_axes(&v, l, r);
        else if (ra && !tdx_km_has_axes(l))
            scale_axes(&v, r, l);
        else if (la && ra)
            for (int i = 0; i < TDX_KM_MAXRANK; i++)
                if (l->axis[i].mult != TDX_KM_MULT_NONE && r->axis[i].mult != TDX_KM_MULT_NONE)
                    v.axis[i].mult = TDX_KM_MULT_OTHER;
        if ((l->flags & TDX_KM_V_EXPANDED) && (r->flags & TDX_KM_V_EXPANDED) && v.rank >= 3)
            v.flags |= TDX_KM_V_PROD3;
        /* k * BLOCK_K: the loop index becomes a block index, not a window;
         * r * n_cols: the index steps over rows of a runtime stride, not
         * along the tile's own axis */
        if ((l->flags & TDX_KM_V_CONSTEXPR) || (r->flags & TDX_KM_V_CONSTEXPR) ||
            (!l->rank && (l->flags & TDX_KM_V_RUNTIME) && !l->win) ||
            (!r->rank && (r->flags & TDX_KM_V_RUNTIME) && !r->win))
            v.win = 0;
        tdx_km_mark_epilogue(&v, l, r);
        break;
    }
    case TDX_OP_SLASH:
    case TDX_OP_DSLASH:
    case TDX_OP_PERCENT:
        if (both_const && b != 0 && !(a == LLONG_MIN && b == -1)) {
            v.flags |= TDX_KM_V_CONST;
            if (op == TDX_OP_PERCENT) {
                v.ival = a % b;
                if (v.ival && ((v.ival < 0) != (b < 0)))
                    v.ival += b;
            } else {
                v.ival = a / b;
                if ((a % b) && ((a < 0) != (b < 0)))
                    v.ival -= 1;
            }
        }
        if (op != TDX_OP_SLASH && tdx_km_has_axes(l) && !tdx_km_has_axes(r))
            for (int i = 0; i < TDX_KM_MAXRANK; i++)
                if (v.axis[i].mult != TDX_KM_MULT_NONE) {
                    v.axis[i].moddiv = 1;
                    if (op == TDX_OP_DSLASH)
                        v.axis[i].mult = TDX_KM_MULT_OTHER;
                }
        tdx_km_mark_epilogue(&v, l, r);
        break;
    case TDX_OP_LSHIFT:
        if (both_const && a >= 0 && b >= 0 && b < 62 && a <= (LLONG_MAX >> b)) {
            v.flags |= TDX_KM_V_CONST;
            v.ival = a << b;
        }
        break;
    case TDX_OP_RSHIFT:
        if (both_const && b >= 0 && b < 63) {
            v.flags |= TDX_KM_V_CONST;
            v.ival = a >> b;
        }
        break;
    default:
        tdx_km_mark_epilogue(&v, l, r);
        break;
    }
    if (v.flags & TDX_KM_V_CONST)
        v.flags |= TDX_KM_V_CONSTEXPR;
    return v;
}

// The elements of a subscript index (a TUPLE's elements or the index itself).
static size_t index_elts(const tdx_src_node *idx, const tdx_src_node **out, size_t max)
{
    if (idx->kind == TDX_SRC_TUPLE && !(idx->flags & TDX_SRC_F_PAREN)) {
        size_t n = 0;
        for (uint32_t i = 0; i < idx->nkids && n < max; i++)
            out[n++] = idx->kids[i];
        return n;
    }
    out[0] = idx;
    return 1;
}

// The constant None or ... .
int tdx_km_is_const_named(const tdx_src_node *n, const char *what)
{
    return n->kind == TDX_SRC_CONST && n->name && strcmp(n->name, what) == 0;
}

// x[:, None], x[None, :], x[:, :, None], x[None, ...]: reshape the axes.
tdx_km_val tdx_km_subscript(tdx_km_ctx *c, const tdx_src_node *n)
{
    tdx_km_val in = tdx_km_eval_expr(c, tdx_src_kid(n, TDX_SRC_R_VALUE));
    const tdx_src_node *idx = tdx_src_kid(n, TDX_SRC_R_INDEX);
    if (!idx)
        return in;
    const tdx_src_node *elts[8];
    size_t ne = index_elts(idx, elts, 8);
    int reshaping = 0, nslices = 0;
    for (size_t i = 0; i < ne; i++) {
        if (elts[i]->kind == TDX_SRC_SLICE && elts[i]->nkids == 0)
            nslices++, reshaping = 1;
        else if (tdx_km_is_const_named(elts[i], "None") || tdx_km_is_const_named(elts[i], "..."))
            reshaping = 1;
        else
            (void)tdx_km_eval_expr(c, elts[i]);
    }
    if (!reshaping)
        return in;
    /* from-left input axes, then build the from-left output */
    tdx_km_axis inl[TDX_KM_MAXRANK], outl[TDX_KM_MAXRANK];
    int rin = in.rank;
    if (rin > TDX_KM_MAXRANK)
        rin = TDX_KM_MAXRANK;
    for (int i = 0; i < rin; i++)
        inl[i] = in.axis[rin - 1 - i];
    int pos = 0, rout = 0, expanded = 0;
    for (size_t i = 0; i < ne && rout < TDX_KM_MAXRANK; i++) {
        const tdx_src_node *e = elts[i];
        if (e->kind == TDX_SRC_SLICE && e->nkids == 0) {
            if (pos < rin)
                outl[rout++] = inl[pos++];
            else
                memset(&outl[rout++], 0, sizeof outl[0]);
        } else if (tdx_km_is_const_named(e, "None")) {
            memset(&outl[rout++], 0, sizeof outl[0]);
            expanded = 1;
        } else if (tdx_km_is_const_named(e, "...")) {
            int rest = rin - pos - (nslices - 0);
            for (int j = 0; j < rest && rout < TDX_KM_MAXRANK; j++)
                outl[rout++] = inl[pos++];
        } else {
            pos++; /* an integer index drops the axis */
        }
    }
    tdx_km_val v = in;
    v.rank = rout;
    memset(v.axis, 0, sizeof v.axis);
    for (int i = 0; i < rout; i++)
        v.axis[i] = outl[rout - 1 - i];
    if (expanded)
        v.flags |= TDX_KM_V_EXPANDED;
    return v;
}
