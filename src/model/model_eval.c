/* Folding a kernel's body into the model: an abstract interpretation of its
 * expressions in program order. Each local variable holds a tdx_km_val
 * (which tl.arange feeds which tile axis, what multiplies it, which pointer
 * parameter it is based on, whether it was loaded, reduced, dotted ...), so
 * that every tl.load / tl.store address is decomposed where it is used.
 * Loops are walked once (enough to see what each iteration does); both arms
 * of an `if` are walked. */
#include <string.h>

#include "model/model_int.h"

/* Helpers are folded in at most 4 calls deep, and at most MAX_STMTS helper
 * statements per kernel in all, so that helpers calling helpers many times
 * cannot make the walk explode. */
enum { MAX_INLINE_DEPTH = 4, MAX_ENV = 4096, MAX_STMTS = 50000 };

typedef struct binding {
    const char *name;
    tdx_km_val val;
} binding;

typedef struct env {
    binding *items;
    size_t len, cap;
} env;

typedef struct ctx {
    tdx_km_file *f;
    tdx_km_kernel *k;
    tdx_arena *arena;
    env *env;
    tdx_km_loop *loop;          /* innermost loop being walked */
    const tdx_src_node *helper; /* helper FUNCDEF being folded, or NULL */
    int depth;                  /* helper inlining depth */
    tdx_km_val ret;             /* value of the last `return` in a helper */
    int has_ret;
    long *budget;               /* statements left to fold, shared with helpers */
    tdx_status st;
} ctx;

static tdx_km_val eval(ctx *c, const tdx_src_node *n);
static void walk_block(ctx *c, const tdx_src_node *parent, tdx_src_role role);

// The empty value: a scalar we know nothing about.
static tdx_km_val v_none(void)
{
    tdx_km_val v;
    memset(&v, 0, sizeof v);
    return v;
}

static tdx_km_val v_const(long long x)
{
    tdx_km_val v = v_none();
    v.flags = TDX_KM_V_CONST | TDX_KM_V_CONSTEXPR;
    v.ival = x;
    return v;
}

// Bind name to v (later bindings shadow earlier ones).
static void bind(ctx *c, const char *name, tdx_km_val v)
{
    if (!name || c->st)
        return;
    env *e = c->env;
    for (size_t i = e->len; i-- > 0;)
        if (e->items[i].name[0] == name[0] && strcmp(e->items[i].name, name) == 0) {
            e->items[i].val = v;
            return;
        }
    if (e->len == e->cap) {
        if (e->cap >= MAX_ENV)
            return;
        size_t cap = e->cap ? e->cap * 2 : 32;
        binding *items = tdx_arena_alloc(c->arena, cap * sizeof *items);
        if (!items) {
            c->st = TDX_ERR_NOMEM;
            return;
        }
        if (e->len)
            memcpy(items, e->items, e->len * sizeof *items);
        e->items = items;
        e->cap = cap;
    }
    e->items[e->len].name = name;
    e->items[e->len].val = v;
    e->len++;
}

static const tdx_km_val *lookup(ctx *c, const char *name)
{
    for (size_t i = c->env->len; i-- > 0;)
        if (c->env->items[i].name[0] == name[0] && strcmp(c->env->items[i].name, name) == 0)
            return &c->env->items[i].val;
    return NULL;
}

// Flags that survive any arithmetic combination.
#define STICKY                                                                                    \
    (TDX_KM_V_ARANGE | TDX_KM_V_DATA | TDX_KM_V_PID | TDX_KM_V_RUNTIME | TDX_KM_V_DOT |           \
     TDX_KM_V_EPI | TDX_KM_V_REDUCED | TDX_KM_V_EXPANDED | TDX_KM_V_WINDOW | TDX_KM_V_HALF |       \
     TDX_KM_V_INT64 | TDX_KM_V_ZEROS | TDX_KM_V_PROD3)

// Element-wise merge of two values: broadcast ranks, union of dependencies.
static tdx_km_val merge(const tdx_km_val *a, const tdx_km_val *b)
{
    tdx_km_val v = v_none();
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

static int has_axes(const tdx_km_val *v)
{
    for (int i = 0; i < TDX_KM_MAXRANK; i++)
        if (v->axis[i].mult != TDX_KM_MULT_NONE)
            return 1;
    return 0;
}

// A DOT value combined with anything but another product or the zero
// accumulator becomes an epilogue.
static void mark_epilogue(tdx_km_val *r, const tdx_km_val *a, const tdx_km_val *b)
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
                ax->mult_const *= s->ival;
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

static int looks_like_pointer(const char *name)
{
    size_t n = strlen(name);
    return (n >= 3 && (strcmp(name + n - 3, "ptr") == 0 || strcmp(name + n - 3, "Ptr") == 0)) ||
           (n >= 4 && strcmp(name + n - 4, "_ptr") == 0);
}

// Fold a binary operator.
static tdx_km_val binop(ctx *c, int op, const tdx_km_val *l, const tdx_km_val *r)
{
    tdx_km_val v = merge(l, r);
    int both_const = (l->flags & TDX_KM_V_CONST) && (r->flags & TDX_KM_V_CONST);
    long long a = l->ival, b = r->ival;
    switch (op) {
    case TDX_OP_PLUS:
    case TDX_OP_MINUS:
        if (both_const) {
            v.flags |= TDX_KM_V_CONST;
            v.ival = op == TDX_OP_PLUS ? a + b : a - b;
        }
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
        if ((l->flags & TDX_KM_V_ARANGE) && has_axes(l) && !has_axes(r) && !r->base)
            c->k->pid_tiled |= r->pids;
        if ((r->flags & TDX_KM_V_ARANGE) && has_axes(r) && !has_axes(l) && !l->base)
            c->k->pid_tiled |= l->pids;
        /* offs + k with k a step-1 loop variable: a sliding window */
        if (((l->flags & TDX_KM_V_ARANGE) && r->win) || ((r->flags & TDX_KM_V_ARANGE) && l->win))
            v.flags |= TDX_KM_V_WINDOW;
        mark_epilogue(&v, l, r);
        if ((l->flags & TDX_KM_V_DOT) && (r->flags & TDX_KM_V_DOT))
            v.flags |= TDX_KM_V_DOT;
        break;
    case TDX_OP_STAR: {
        if (both_const) {
            v.flags |= TDX_KM_V_CONST;
            v.ival = a * b;
        }
        int la = has_axes(l) && !(l->flags & TDX_KM_V_DATA);
        int ra = has_axes(r) && !(r->flags & TDX_KM_V_DATA);
        if (la && !has_axes(r))
            scale_axes(&v, l, r);
        else if (ra && !has_axes(l))
            scale_axes(&v, r, l);
        else if (la && ra)
            for (int i = 0; i < TDX_KM_MAXRANK; i++)
                if (l->axis[i].mult != TDX_KM_MULT_NONE && r->axis[i].mult != TDX_KM_MULT_NONE)
                    v.axis[i].mult = TDX_KM_MULT_OTHER;
        if ((l->flags & TDX_KM_V_EXPANDED) && (r->flags & TDX_KM_V_EXPANDED) && v.rank >= 3)
            v.flags |= TDX_KM_V_PROD3;
        /* k * BLOCK_K: the loop index becomes a block index, not a window */
        if ((l->flags & TDX_KM_V_CONSTEXPR) || (r->flags & TDX_KM_V_CONSTEXPR))
            v.win = 0;
        mark_epilogue(&v, l, r);
        break;
    }
    case TDX_OP_SLASH:
    case TDX_OP_DSLASH:
    case TDX_OP_PERCENT:
        if (both_const && b != 0) {
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
        if (op != TDX_OP_SLASH && has_axes(l) && !has_axes(r))
            for (int i = 0; i < TDX_KM_MAXRANK; i++)
                if (v.axis[i].mult != TDX_KM_MULT_NONE) {
                    v.axis[i].moddiv = 1;
                    if (op == TDX_OP_DSLASH)
                        v.axis[i].mult = TDX_KM_MULT_OTHER;
                }
        mark_epilogue(&v, l, r);
        break;
    case TDX_OP_LSHIFT:
        if (both_const && b >= 0 && b < 62) {
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
        mark_epilogue(&v, l, r);
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

static int is_const_named(const tdx_src_node *n, const char *what)
{
    return n->kind == TDX_SRC_CONST && n->name && strcmp(n->name, what) == 0;
}

// x[:, None], x[None, :], x[:, :, None], x[None, ...]: reshape the axes.
static tdx_km_val subscript(ctx *c, const tdx_src_node *n)
{
    tdx_km_val in = eval(c, tdx_src_kid(n, TDX_SRC_R_VALUE));
    const tdx_src_node *idx = tdx_src_kid(n, TDX_SRC_R_INDEX);
    if (!idx)
        return in;
    const tdx_src_node *elts[8];
    size_t ne = index_elts(idx, elts, 8);
    int reshaping = 0, nslices = 0;
    for (size_t i = 0; i < ne; i++) {
        if (elts[i]->kind == TDX_SRC_SLICE && elts[i]->nkids == 0)
            nslices++, reshaping = 1;
        else if (is_const_named(elts[i], "None") || is_const_named(elts[i], "..."))
            reshaping = 1;
        else
            (void)eval(c, elts[i]);
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
        } else if (is_const_named(e, "None")) {
            memset(&outl[rout++], 0, sizeof outl[0]);
            expanded = 1;
        } else if (is_const_named(e, "...")) {
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

static tdx_status push_op(ctx *c, tdx_km_op *op)
{
    if (tdx_ptrvec_push(c->arena, &c->k->ops, op) != 0)
        return c->st = TDX_ERR_NOMEM;
    return TDX_OK;
}

static tdx_km_op *new_op(ctx *c, tdx_km_op_kind kind, const char *name, const tdx_src_node *call)
{
    tdx_km_op *op = tdx_arena_alloc(c->arena, sizeof *op);
    if (!op) {
        c->st = TDX_ERR_NOMEM;
        return NULL;
    }
    op->kind = kind;
    op->name = name;
    op->call = call;
    op->loop = c->loop;
    op->axis = -1;
    op->allow_tf32 = -1;
    if (push_op(c, op))
        return NULL;
    return op;
}

// Argument i of a call, or its keyword `kw` (either may be absent).
static const tdx_src_node *arg_or_kw(const tdx_src_node *call, size_t i, const char *kw)
{
    const tdx_src_node *a = kw ? tdx_src_call_kwarg(call, kw) : NULL;
    if (a)
        return a;
    return tdx_src_call_arg(call, i);
}

// Evaluate every argument and keyword of a call and merge them.
static tdx_km_val merge_args(ctx *c, const tdx_src_node *call)
{
    tdx_km_val v = v_none();
    int first = 1;
    for (uint32_t i = 0; i < call->nkids; i++) {
        const tdx_src_node *a = call->kids[i];
        if (a->role == TDX_SRC_R_FUNC)
            continue;
        if (a->kind == TDX_SRC_KEYWORD)
            a = tdx_src_kid(a, TDX_SRC_R_VALUE);
        if (!a)
            continue;
        tdx_km_val x = eval(c, a);
        if (first)
            v = x, first = 0;
        else
            v = merge(&v, &x);
        mark_epilogue(&v, &x, &x);
    }
    v.base = NULL;
    v.param = NULL;
    v.flags &= ~(TDX_KM_V_CONST | TDX_KM_V_ZEROS);
    return v;
}

static int fold_small(ctx *c, const tdx_src_node *n, long long *out)
{
    if (!n)
        return 0;
    tdx_km_val v = eval(c, n);
    if (v.flags & TDX_KM_V_CONST) {
        *out = v.ival;
        return 1;
    }
    return 0;
}

// A tl.load / tl.store / tl.atomic_* call.
static tdx_km_val access(ctx *c, const tdx_src_node *call, tdx_km_access_kind kind,
                         const char *op)
{
    tdx_km_access *a = tdx_arena_alloc(c->arena, sizeof *a);
    if (!a) {
        c->st = TDX_ERR_NOMEM;
        return v_none();
    }
    a->kind = kind;
    a->op = op;
    a->call = call;
    a->ptr = arg_or_kw(call, 0, "pointer");
    a->loop = c->loop;
    a->helper = c->helper;
    if (a->ptr)
        a->addr = eval(c, a->ptr);
    if (kind == TDX_KM_LOAD) {
        a->mask = arg_or_kw(call, 1, "mask");
        a->other = arg_or_kw(call, 2, "other");
    } else {
        const tdx_src_node *val = arg_or_kw(call, 1, "val");
        if (!val)
            val = tdx_src_call_kwarg(call, "value");
        if (val)
            a->value = eval(c, val);
        a->mask = arg_or_kw(call, 2, "mask");
    }
    if (a->mask)
        (void)eval(c, a->mask);
    if (a->other)
        (void)eval(c, a->other);
    c->k->pid_addr |= a->addr.pids;
    if (tdx_ptrvec_push(c->arena, &c->k->accesses, a) != 0) {
        c->st = TDX_ERR_NOMEM;
        return v_none();
    }
    if (kind == TDX_KM_STORE)
        return v_none();
    tdx_km_val r = a->addr;
    r.flags = (r.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME)) | TDX_KM_V_DATA;
    r.flags &= ~TDX_KM_V_BLOCKPTR;
    r.base = NULL;
    r.param = NULL;
    r.win = 0;
    return r;
}

// A tensor-descriptor (TMA) access: desc.load(offsets), desc.store(offsets,
// value), tl._experimental_descriptor_load(desc, offsets, shape, dtype).
static tdx_km_val desc_access(ctx *c, const tdx_src_node *call, tdx_km_access_kind kind,
                              const tdx_src_node *desc, const tdx_src_node *value)
{
    tdx_km_access *a = tdx_arena_alloc(c->arena, sizeof *a);
    if (!a) {
        c->st = TDX_ERR_NOMEM;
        return v_none();
    }
    a->kind = kind;
    a->op = kind == TDX_KM_LOAD ? "load" : "store";
    a->call = call;
    a->ptr = desc;
    a->loop = c->loop;
    a->helper = c->helper;
    if (desc)
        a->addr = eval(c, desc);
    a->addr.flags |= TDX_KM_V_BLOCKPTR;
    if (!a->addr.base)
        a->addr.base = a->addr.param;
    /* every other argument once: the offsets, and the stored value */
    for (uint32_t i = 0; i < call->nkids; i++) {
        const tdx_src_node *x = call->kids[i];
        if (x->role == TDX_SRC_R_FUNC || x == desc)
            continue;
        if (x->kind == TDX_SRC_KEYWORD)
            x = tdx_src_kid(x, TDX_SRC_R_VALUE);
        if (!x)
            continue;
        tdx_km_val v = eval(c, x);
        if (x == value)
            a->value = v;
        c->k->pid_tiled |= v.pids;
        c->k->pid_addr |= v.pids;
    }
    if (tdx_ptrvec_push(c->arena, &c->k->accesses, a) != 0) {
        c->st = TDX_ERR_NOMEM;
        return v_none();
    }
    if (kind != TDX_KM_LOAD)
        return v_none();
    tdx_km_val r = v_none();
    r.flags = TDX_KM_V_DATA;
    r.rank = a->addr.rank;
    memcpy(r.axis, a->addr.axis, sizeof r.axis);
    return r;
}

// The rank and axis sizes of a shape argument: (BLOCK_M, BLOCK_N) or [BLOCK].
static void shape_axes(ctx *c, const tdx_src_node *shape, tdx_km_val *v)
{
    if (!shape)
        return;
    if (shape->kind == TDX_SRC_TUPLE || shape->kind == TDX_SRC_LIST) {
        int r = (int)shape->nkids;
        if (r > TDX_KM_MAXRANK)
            r = TDX_KM_MAXRANK;
        v->rank = r;
        for (int i = 0; i < r; i++) {
            v->axis[i].size = shape->kids[r - 1 - i];
            (void)eval(c, shape->kids[r - 1 - i]);
        }
    } else {
        v->rank = 1;
        v->axis[0].size = shape;
    }
}

// tl.dot(a, b, acc=None, input_precision=None, allow_tf32=None, ...).
static tdx_km_val dot(ctx *c, const tdx_src_node *call)
{
    const tdx_src_node *an = arg_or_kw(call, 0, "input"), *bn = arg_or_kw(call, 1, "other");
    const tdx_src_node *accn = arg_or_kw(call, 2, "acc");
    tdx_km_val a = an ? eval(c, an) : v_none();
    tdx_km_val b = bn ? eval(c, bn) : v_none();
    tdx_km_val acc = accn ? eval(c, accn) : v_none();
    tdx_km_op *op = new_op(c, TDX_KM_OP_DOT, "dot", call);
    if (!op)
        return v_none();
    const tdx_src_node *ip = arg_or_kw(call, 3, "input_precision");
    if (ip && ip->kind == TDX_SRC_STRING)
        op->input_precision = tdx_src_string_value(c->f->mod, ip, c->arena);
    const tdx_src_node *tf = tdx_src_call_kwarg(call, "allow_tf32");
    if (tf && tf->kind == TDX_SRC_CONST)
        op->allow_tf32 = strcmp(tf->name, "True") == 0 ? 1 : strcmp(tf->name, "False") == 0 ? 0 : -1;
    op->operands_half = ((a.flags | b.flags) & TDX_KM_V_HALF) != 0;
    op->dim_m = a.rank >= 2 ? a.axis[1].size : NULL;
    op->dim_k = a.rank >= 1 ? a.axis[0].size : NULL;
    op->dim_n = b.rank >= 1 ? b.axis[0].size : NULL;
    op->input = a;
    tdx_km_val v = merge(&a, &b);
    if (accn)
        v = merge(&v, &acc);
    v.flags &= ~(TDX_KM_V_EPI | TDX_KM_V_EXPANDED | TDX_KM_V_PROD3 | TDX_KM_V_HALF);
    v.flags |= TDX_KM_V_DOT;
    v.rank = 2;
    memset(v.axis, 0, sizeof v.axis);
    v.axis[1].size = op->dim_m;
    v.axis[0].size = op->dim_n;
    v.axis[1].mult = v.axis[0].mult = TDX_KM_MULT_OTHER;
    v.base = v.param = NULL;
    return v;
}

// tl.sum / tl.max / ... and x.sum(axis=...): a reduction.
static tdx_km_val reduce(ctx *c, const tdx_src_node *call, const char *name,
                         const tdx_src_node *input, const tdx_src_node *axisn)
{
    tdx_km_val in = input ? eval(c, input) : v_none();
    tdx_km_op *op = new_op(c, TDX_KM_OP_REDUCE, name, call);
    if (!op)
        return v_none();
    long long ax;
    if (axisn && !is_const_named(axisn, "None") && fold_small(c, axisn, &ax))
        op->axis = (int)ax;
    op->input = in;
    tdx_km_val v = in;
    v.flags = (in.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME | TDX_KM_V_DOT | TDX_KM_V_EPI)) |
              TDX_KM_V_REDUCED;
    v.base = v.param = NULL;
    if (op->axis < 0 || in.rank <= 1) {
        v.rank = 0;
        memset(v.axis, 0, sizeof v.axis);
    } else {
        int ax_left = op->axis < 0 ? op->axis + in.rank : op->axis;
        int r = in.rank - 1 - ax_left; /* from the right */
        for (int i = r; i + 1 < TDX_KM_MAXRANK; i++)
            v.axis[i] = in.axis[i + 1];
        memset(&v.axis[TDX_KM_MAXRANK - 1], 0, sizeof v.axis[0]);
        v.rank = in.rank - 1;
    }
    return v;
}

static int name_in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static const char *const REDUCTIONS[] = {"sum", "max", "min", "argmax", "argmin", "reduce",
                                         "xor_sum", "prod", NULL};
static const char *const SCANS[] = {"cumsum", "cumprod", "associative_scan", NULL};
static const char *const MATH[] = {"exp", "exp2", "log", "log2", "log1p", "expm1", "sqrt",
                                   "sqrt_rn", "rsqrt", "sigmoid", "erf", "sin", "cos", "tanh",
                                   "pow", "softmax", "fast_expf", "fast_dividef", NULL};

static tdx_km_val inline_helper(ctx *c, tdx_km_kernel *h, const tdx_src_node *call);

// The dtype argument of .to(dtype) / tl.cast(x, dtype).
static void cast_flags(ctx *c, const tdx_src_node *call, const tdx_src_node *dtype, tdx_km_val *v)
{
    if (!dtype)
        return;
    if (tdx_km_is_int64_dtype(dtype)) {
        tdx_km_op *op = new_op(c, TDX_KM_OP_INT64, "int64", call);
        if (op)
            op->input = *v;
        v->flags |= TDX_KM_V_INT64;
    } else if (tdx_km_is_half_dtype(dtype)) {
        v->flags |= TDX_KM_V_HALF;
    } else {
        v->flags &= ~TDX_KM_V_HALF;
    }
}

// A call: triton.language builtins, helper functions, methods on values.
static tdx_km_val call(ctx *c, const tdx_src_node *n)
{
    const tdx_src_node *fn = tdx_src_call_func(n);
    if (!fn)
        return v_none();
    const char *tl = tdx_km_tl_name(fn);
    if (tl) {
        if (strcmp(tl, "arange") == 0) {
            tdx_km_val v = v_none();
            v.flags = TDX_KM_V_ARANGE | TDX_KM_V_CONSTEXPR;
            v.rank = 1;
            v.axis[0].mult = TDX_KM_MULT_UNIT;
            v.axis[0].size = arg_or_kw(n, 1, "end");
            return v;
        }
        if (strcmp(tl, "program_id") == 0) {
            tdx_km_val v = v_none();
            long long ax = 0;
            const tdx_src_node *a = arg_or_kw(n, 0, "axis");
            if (a && !fold_small(c, a, &ax))
                ax = 0;
            if (ax < 0 || ax > 2)
                ax = 0;
            v.flags = TDX_KM_V_PID;
            v.pids = 1u << ax;
            c->k->pid_axes |= v.pids;
            return v;
        }
        if (strcmp(tl, "num_programs") == 0) {
            tdx_km_val v = v_none();
            v.flags = TDX_KM_V_RUNTIME;
            return v;
        }
        if (strcmp(tl, "load") == 0)
            return access(c, n, TDX_KM_LOAD, "load");
        if (strcmp(tl, "store") == 0)
            return access(c, n, TDX_KM_STORE, "store");
        if (strncmp(tl, "atomic_", 7) == 0)
            return access(c, n, TDX_KM_ATOMIC, tl);
        if (strcmp(tl, "_experimental_descriptor_load") == 0 ||
            strcmp(tl, "load_tensor_descriptor") == 0)
            return desc_access(c, n, TDX_KM_LOAD, tdx_src_call_arg(n, 0), NULL);
        if (strcmp(tl, "_experimental_descriptor_store") == 0 ||
            strcmp(tl, "store_tensor_descriptor") == 0)
            return desc_access(c, n, TDX_KM_STORE, tdx_src_call_arg(n, 0),
                               tdx_src_call_arg(n, 1));
        if (strcmp(tl, "make_tensor_descriptor") == 0 ||
            strcmp(tl, "_experimental_make_tensor_descriptor") == 0) {
            const tdx_src_node *base = arg_or_kw(n, 0, "base");
            tdx_km_val b = base ? eval(c, base) : v_none();
            tdx_km_val o = merge_args(c, n);
            tdx_km_val v = v_none();
            v.flags = TDX_KM_V_BLOCKPTR | (o.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME));
            v.base = b.base ? b.base : b.param;
            shape_axes(c, arg_or_kw(n, 3, "block_shape"), &v);
            for (int i = 0; i < v.rank; i++)
                v.axis[i].mult = i == 0 ? TDX_KM_MULT_UNIT : TDX_KM_MULT_OTHER;
            return v;
        }
        if (strcmp(tl, "dot") == 0 || strcmp(tl, "dot_scaled") == 0)
            return dot(c, n);
        if (name_in(tl, REDUCTIONS))
            return reduce(c, n, tl, arg_or_kw(n, 0, "input"), arg_or_kw(n, 1, "axis"));
        if (name_in(tl, SCANS)) {
            tdx_km_val v = merge_args(c, n);
            tdx_km_op *op = new_op(c, TDX_KM_OP_SCAN, tl, n);
            if (op)
                op->input = v;
            return v;
        }
        if (strcmp(tl, "zeros") == 0 || strcmp(tl, "full") == 0) {
            tdx_km_val v = v_none();
            if (strcmp(tl, "full") == 0) {
                const tdx_src_node *val = arg_or_kw(n, 1, "value");
                if (val)
                    (void)eval(c, val);
            }
            v.flags = TDX_KM_V_ZEROS;
            shape_axes(c, arg_or_kw(n, 0, "shape"), &v);
            return v;
        }
        if (strcmp(tl, "zeros_like") == 0 || strcmp(tl, "full_like") == 0) {
            tdx_km_val v = merge_args(c, n);
            v.flags = TDX_KM_V_ZEROS;
            return v;
        }
        if (strcmp(tl, "make_block_ptr") == 0) {
            const tdx_src_node *base = arg_or_kw(n, 0, "base");
            tdx_km_val b = base ? eval(c, base) : v_none();
            tdx_km_val o = merge_args(c, n);
            tdx_km_val v = v_none();
            v.flags = TDX_KM_V_BLOCKPTR | (o.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME));
            v.pids = o.pids;
            v.loops = o.loops;
            v.base = b.base ? b.base : b.param;
            shape_axes(c, arg_or_kw(n, 5, "block_shape"), &v);
            for (int i = 0; i < v.rank; i++)
                v.axis[i].mult = i == 0 ? TDX_KM_MULT_UNIT : TDX_KM_MULT_OTHER;
            c->k->pid_tiled |= o.pids;
            return v;
        }
        if (strcmp(tl, "advance") == 0 || strcmp(tl, "multiple_of") == 0 ||
            strcmp(tl, "max_contiguous") == 0 || strcmp(tl, "max_constancy") == 0 ||
            strcmp(tl, "reshape") == 0 || strcmp(tl, "view") == 0 ||
            strcmp(tl, "broadcast_to") == 0 || strcmp(tl, "expand_dims") == 0) {
            const tdx_src_node *a0 = tdx_src_call_arg(n, 0);
            tdx_km_val v = a0 ? eval(c, a0) : v_none();
            for (size_t i = 1; i < tdx_src_call_nargs(n); i++)
                (void)eval(c, tdx_src_call_arg(n, i));
            return v;
        }
        if (strcmp(tl, "trans") == 0 || strcmp(tl, "permute") == 0) {
            const tdx_src_node *a0 = tdx_src_call_arg(n, 0);
            tdx_km_val v = a0 ? eval(c, a0) : v_none();
            if (v.rank >= 2) {
                tdx_km_axis t = v.axis[0];
                v.axis[0] = v.axis[1];
                v.axis[1] = t;
            }
            return v;
        }
        if (strcmp(tl, "cast") == 0) {
            const tdx_src_node *a0 = arg_or_kw(n, 0, "input");
            tdx_km_val v = a0 ? eval(c, a0) : v_none();
            cast_flags(c, n, arg_or_kw(n, 1, "dtype"), &v);
            return v;
        }
        if (strcmp(tl, "cdiv") == 0) {
            const tdx_src_node *x = tdx_src_call_arg(n, 0), *y = tdx_src_call_arg(n, 1);
            tdx_km_val a = x ? eval(c, x) : v_none(), b = y ? eval(c, y) : v_none();
            tdx_km_val v = merge(&a, &b);
            if ((a.flags & b.flags & TDX_KM_V_CONST) && b.ival > 0) {
                v.flags |= TDX_KM_V_CONST | TDX_KM_V_CONSTEXPR;
                v.ival = (a.ival + b.ival - 1) / b.ival;
            }
            return v;
        }
        if (strcmp(tl, "static_print") == 0 || strcmp(tl, "static_assert") == 0 ||
            strcmp(tl, "device_print") == 0 || strcmp(tl, "device_assert") == 0 ||
            strcmp(tl, "debug_barrier") == 0)
            return v_none();
        tdx_km_val v = merge_args(c, n);
        if (name_in(tl, MATH))
            (void)new_op(c, TDX_KM_OP_MATH, tl, n);
        if (strcmp(tl, "rand") == 0 || strcmp(tl, "randn") == 0 || strcmp(tl, "randint") == 0)
            v.flags |= TDX_KM_V_RUNTIME;
        return v;
    }
    /* helper @triton.jit functions, called by name */
    if (fn->kind == TDX_SRC_NAME && fn->name) {
        tdx_km_kernel *h = tdx_km_kernel_named(c->f, fn->name);
        if (h && h != c->k && h->def != c->helper)
            return inline_helper(c, h, n);
        if (strcmp(fn->name, "min") == 0 || strcmp(fn->name, "max") == 0) {
            tdx_km_val v = merge_args(c, n);
            long long best = 0;
            int all = 1;
            for (size_t i = 0; i < tdx_src_call_nargs(n); i++) {
                long long x;
                if (!fold_small(c, tdx_src_call_arg(n, i), &x)) {
                    all = 0;
                    break;
                }
                if (i == 0 || (fn->name[1] == 'i' ? x < best : x > best))
                    best = x;
            }
            if (all && tdx_src_call_nargs(n) > 0) {
                v.flags |= TDX_KM_V_CONST | TDX_KM_V_CONSTEXPR;
                v.ival = best;
            }
            return v;
        }
        return merge_args(c, n);
    }
    /* methods on values: x.to(...), x.sum(axis=...), ptr.dtype ... */
    if (fn->kind == TDX_SRC_ATTRIBUTE && fn->name) {
        const tdx_src_node *obj = tdx_src_kid(fn, TDX_SRC_R_VALUE);
        if (strcmp(fn->name, "to") == 0) {
            tdx_km_val v = obj ? eval(c, obj) : v_none();
            cast_flags(c, n, arg_or_kw(n, 0, "dtype"), &v);
            return v;
        }
        if (name_in(fn->name, REDUCTIONS))
            return reduce(c, n, fn->name, obj, arg_or_kw(n, 0, "axis"));
        if (strcmp(fn->name, "load") == 0)
            return desc_access(c, n, TDX_KM_LOAD, obj, NULL);
        if (strcmp(fn->name, "store") == 0)
            return desc_access(c, n, TDX_KM_STORE, obj, arg_or_kw(n, 1, "value"));
        if (name_in(fn->name, SCANS)) {
            tdx_km_val v = obj ? eval(c, obj) : v_none();
            tdx_km_op *op = new_op(c, TDX_KM_OP_SCAN, fn->name, n);
            if (op)
                op->input = v;
            return v;
        }
        tdx_km_val v = obj ? eval(c, obj) : v_none();
        tdx_km_val a = merge_args(c, n);
        v = merge(&v, &a);
        v.flags &= ~TDX_KM_V_CONST;
        return v;
    }
    return merge_args(c, n);
}

// Fold a helper's body with its parameters bound to the call's arguments.
static tdx_km_val inline_helper(ctx *c, tdx_km_kernel *h, const tdx_src_node *n)
{
    tdx_km_op *op = new_op(c, TDX_KM_OP_HELPER, h->name, n);
    if (!op)
        return v_none();
    /* arguments are evaluated in the caller's scope */
    tdx_km_val *args = tdx_arena_alloc(c->arena, (h->nparams + 1) * sizeof *args);
    if (!args) {
        c->st = TDX_ERR_NOMEM;
        return v_none();
    }
    int dot_in = 0;
    for (size_t i = 0; i < h->nparams; i++) {
        const tdx_src_node *a = i < tdx_src_call_nargs(n) ? tdx_src_call_arg(n, i) : NULL;
        if (!a)
            a = tdx_src_call_kwarg(n, h->params[i].name);
        if (a && a->kind != TDX_SRC_STARRED)
            args[i] = eval(c, a);
        else if (h->params[i].has_default_value)
            args[i] = v_const(h->params[i].default_value);
        else
            args[i] = v_none();
        if (args[i].flags & TDX_KM_V_DOT)
            dot_in = 1;
    }
    if (c->depth >= MAX_INLINE_DEPTH)
        return v_none();
    if (tdx_ptrvec_push(c->arena, &c->k->helpers, (void *)h->def) != 0) {
        c->st = TDX_ERR_NOMEM;
        return v_none();
    }
    env e = {0};
    ctx sub = *c;
    sub.env = &e;
    sub.helper = h->def;
    sub.depth = c->depth + 1;
    sub.has_ret = 0;
    sub.ret = v_none();
    for (size_t i = 0; i < h->nparams; i++)
        bind(&sub, h->params[i].name, args[i]);
    walk_block(&sub, h->def, TDX_SRC_R_BODY);
    c->st = sub.st;
    tdx_km_val r = sub.has_ret ? sub.ret : v_none();
    if (dot_in && (r.flags & TDX_KM_V_DOT))
        r.flags |= TDX_KM_V_EPI;
    return r;
}

static tdx_km_val eval(ctx *c, const tdx_src_node *n)
{
    if (!n || c->st)
        return v_none();
    switch (n->kind) {
    case TDX_SRC_NAME: {
        const tdx_km_val *b = lookup(c, n->name);
        if (b)
            return *b;
        long long x;
        if (tdx_km_fold_int(c->f, NULL, NULL, NULL, n, &x))
            return v_const(x);
        tdx_km_val v = v_none();
        v.flags = TDX_KM_V_CONSTEXPR; /* a global: constexpr at compile time */
        return v;
    }
    case TDX_SRC_NUMBER: {
        long long x;
        if (tdx_src_int_value(c->f->mod, n, &x) == TDX_OK)
            return v_const(x);
        tdx_km_val v = v_none();
        v.flags = TDX_KM_V_CONSTEXPR;
        return v;
    }
    case TDX_SRC_CONST:
    case TDX_SRC_STRING: {
        tdx_km_val v = v_none();
        v.flags = TDX_KM_V_CONSTEXPR;
        return v;
    }
    case TDX_SRC_UNARYOP: {
        tdx_km_val v = eval(c, tdx_src_kid(n, TDX_SRC_R_OPERAND));
        if (n->op == TDX_OP_MINUS && (v.flags & TDX_KM_V_CONST))
            v.ival = -v.ival;
        else if (n->op == TDX_OP_NOT || n->op == TDX_OP_TILDE)
            v.flags &= ~TDX_KM_V_CONST;
        v.base = v.param = NULL;
        return v;
    }
    case TDX_SRC_BINOP: {
        tdx_km_val l = eval(c, tdx_src_kid(n, TDX_SRC_R_LEFT));
        tdx_km_val r = eval(c, tdx_src_kid(n, TDX_SRC_R_RIGHT));
        return binop(c, n->op, &l, &r);
    }
    case TDX_SRC_COMPARE:
    case TDX_SRC_BOOLOP:
    case TDX_SRC_TUPLE:
    case TDX_SRC_LIST:
    case TDX_SRC_IFEXP: {
        tdx_km_val v = v_none();
        for (uint32_t i = 0; i < n->nkids; i++) {
            tdx_km_val x = eval(c, n->kids[i]);
            v = i ? merge(&v, &x) : x;
        }
        v.flags &= ~(TDX_KM_V_CONST | TDX_KM_V_ZEROS);
        v.base = v.param = NULL;
        return v;
    }
    case TDX_SRC_SUBSCRIPT:
        return subscript(c, n);
    case TDX_SRC_ATTRIBUTE: {
        const tdx_src_node *obj = tdx_src_kid(n, TDX_SRC_R_VALUE);
        if (tdx_km_tl_name(n))
            return v_none(); /* tl.float16 and the like */
        tdx_km_val v = obj ? eval(c, obj) : v_none();
        if (n->name && strcmp(n->name, "T") == 0 && v.rank >= 2) {
            tdx_km_axis t = v.axis[0];
            v.axis[0] = v.axis[1];
            v.axis[1] = t;
        } else if (n->name && (strcmp(n->name, "dtype") == 0 || strcmp(n->name, "type") == 0 ||
                               strcmp(n->name, "element_ty") == 0 ||
                               strcmp(n->name, "shape") == 0)) {
            v = v_none();
            v.flags = TDX_KM_V_CONSTEXPR;
        }
        return v;
    }
    case TDX_SRC_CALL:
        return call(c, n);
    case TDX_SRC_NAMEDEXPR: {
        tdx_km_val v = eval(c, tdx_src_kid(n, TDX_SRC_R_VALUE));
        const tdx_src_node *t = tdx_src_kid(n, TDX_SRC_R_TARGET);
        if (t && t->kind == TDX_SRC_NAME)
            bind(c, t->name, v);
        return v;
    }
    default:
        return v_none();
    }
}

// Assign v to a target expression (a name, or a tuple of names).
static void assign(ctx *c, const tdx_src_node *target, const tdx_src_node *value, tdx_km_val v)
{
    if (!target)
        return;
    if (target->kind == TDX_SRC_NAME) {
        bind(c, target->name, v);
    } else if (target->kind == TDX_SRC_TUPLE || target->kind == TDX_SRC_LIST) {
        int pairwise = value && (value->kind == TDX_SRC_TUPLE || value->kind == TDX_SRC_LIST) &&
                       value->nkids == target->nkids;
        for (uint32_t i = 0; i < target->nkids; i++) {
            if (pairwise)
                assign(c, target->kids[i], NULL, eval(c, value->kids[i]));
            else
                assign(c, target->kids[i], NULL, v);
        }
    } else {
        /* x[i] = ..., obj.attr = ...: evaluate the parts for their calls */
        (void)eval(c, target);
    }
}

static tdx_km_loop_kind loop_kind(const tdx_src_node *iter, const tdx_src_node **callee_out)
{
    *callee_out = NULL;
    if (!iter || iter->kind != TDX_SRC_CALL)
        return TDX_KM_LOOP_OTHER;
    const tdx_src_node *fn = tdx_src_call_func(iter);
    *callee_out = fn;
    if (tdx_src_is_dotted(fn, "range"))
        return TDX_KM_LOOP_RANGE;
    const char *tl = tdx_km_tl_name(fn);
    if (tl && strcmp(tl, "range") == 0)
        return TDX_KM_LOOP_TL_RANGE;
    if (tl && strcmp(tl, "static_range") == 0)
        return TDX_KM_LOOP_STATIC;
    return TDX_KM_LOOP_OTHER;
}

// A for/while loop: record it, bind its variable, walk its body.
static void loop(ctx *c, const tdx_src_node *n)
{
    tdx_km_loop *lp = tdx_arena_alloc(c->arena, sizeof *lp);
    if (!lp) {
        c->st = TDX_ERR_NOMEM;
        return;
    }
    lp->id = (int)c->k->loops.len;
    lp->node = n;
    lp->parent = c->loop;
    lp->depth = c->loop ? c->loop->depth + 1 : 1;
    lp->num_stages = -1;
    if (tdx_ptrvec_push(c->arena, &c->k->loops, lp) != 0) {
        c->st = TDX_ERR_NOMEM;
        return;
    }
    uint32_t bit = lp->id < TDX_KM_MAXLOOPS ? 1u << lp->id : 0;
    tdx_km_val var = v_none();
    if (n->kind == TDX_SRC_WHILE) {
        lp->kind = TDX_KM_LOOP_WHILE;
        tdx_km_val t = eval(c, tdx_src_kid(n, TDX_SRC_R_TEST));
        lp->runtime_bound = (t.flags & (TDX_KM_V_RUNTIME | TDX_KM_V_DATA)) != 0;
    } else {
        const tdx_src_node *iter = tdx_src_kid(n, TDX_SRC_R_ITER), *callee;
        const tdx_src_node *target = tdx_src_kid(n, TDX_SRC_R_TARGET);
        lp->kind = loop_kind(iter, &callee);
        if (target && target->kind == TDX_SRC_NAME)
            lp->var = target->name;
        if (lp->kind != TDX_KM_LOOP_OTHER) {
            size_t na = tdx_src_call_nargs(iter);
            lp->start = na >= 2 ? tdx_src_call_arg(iter, 0) : NULL;
            lp->stop = na >= 2 ? tdx_src_call_arg(iter, 1) : tdx_src_call_arg(iter, 0);
            lp->step = na >= 3 ? tdx_src_call_arg(iter, 2) : tdx_src_call_kwarg(iter, "step");
            tdx_km_val start = lp->start ? eval(c, lp->start) : v_none();
            tdx_km_val stop = lp->stop ? eval(c, lp->stop) : v_none();
            long long s = 1;
            lp->step_is_one = !lp->step || (fold_small(c, lp->step, &s) && s == 1);
            lp->runtime_bound =
                ((start.flags | stop.flags) & (TDX_KM_V_RUNTIME | TDX_KM_V_DATA | TDX_KM_V_PID)) != 0;
            const tdx_src_node *ns = tdx_src_call_kwarg(iter, "num_stages");
            long long nsv;
            if (ns && fold_small(c, ns, &nsv))
                lp->num_stages = (int)nsv;
            else if (ns)
                lp->num_stages = 0; /* given, value not known here */
            var = merge(&start, &stop);
            var.flags &= ~(TDX_KM_V_CONST | TDX_KM_V_ARANGE);
            memset(var.axis, 0, sizeof var.axis);
            var.rank = 0;
            var.base = var.param = NULL;
        } else if (iter) {
            tdx_km_val it = eval(c, iter);
            var = it;
            var.base = var.param = NULL;
            lp->runtime_bound = (it.flags & TDX_KM_V_RUNTIME) != 0;
        }
        var.loops |= bit;
        if (lp->step_is_one && lp->kind != TDX_KM_LOOP_OTHER)
            var.win = bit;
        if (lp->kind == TDX_KM_LOOP_STATIC)
            var.flags |= TDX_KM_V_CONSTEXPR;
        else
            var.flags &= ~TDX_KM_V_CONSTEXPR;
        assign(c, target, NULL, var);
    }
    tdx_km_loop *saved = c->loop;
    c->loop = lp;
    walk_block(c, n, TDX_SRC_R_BODY);
    c->loop = saved;
    walk_block(c, n, TDX_SRC_R_ORELSE);
}

static void stmt(ctx *c, const tdx_src_node *s)
{
    switch (s->kind) {
    case TDX_SRC_ASSIGN: {
        const tdx_src_node *value = tdx_src_kid(s, TDX_SRC_R_VALUE);
        tdx_km_val v = eval(c, value);
        for (const tdx_src_node *t = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); t;
             t = tdx_src_next(s, TDX_SRC_R_TARGET, t))
            assign(c, t, value, v);
        break;
    }
    case TDX_SRC_ANNASSIGN: {
        const tdx_src_node *value = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (value)
            assign(c, tdx_src_kid(s, TDX_SRC_R_TARGET), value, eval(c, value));
        break;
    }
    case TDX_SRC_AUGASSIGN: {
        const tdx_src_node *t = tdx_src_kid(s, TDX_SRC_R_TARGET);
        tdx_km_val r = eval(c, tdx_src_kid(s, TDX_SRC_R_VALUE));
        tdx_km_val l = eval(c, t);
        tdx_km_val v = binop(c, s->op, &l, &r);
        if (t && t->kind == TDX_SRC_NAME)
            bind(c, t->name, v);
        break;
    }
    case TDX_SRC_EXPR_STMT:
        (void)eval(c, tdx_src_kid(s, TDX_SRC_R_VALUE));
        break;
    case TDX_SRC_RETURN: {
        const tdx_src_node *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (v) {
            c->ret = eval(c, v);
            c->has_ret = 1;
        }
        break;
    }
    case TDX_SRC_IF:
        (void)eval(c, tdx_src_kid(s, TDX_SRC_R_TEST));
        walk_block(c, s, TDX_SRC_R_BODY);
        walk_block(c, s, TDX_SRC_R_ORELSE);
        break;
    case TDX_SRC_FOR:
    case TDX_SRC_WHILE:
        loop(c, s);
        break;
    case TDX_SRC_WITH:
    case TDX_SRC_TRY:
        walk_block(c, s, TDX_SRC_R_BODY);
        break;
    case TDX_SRC_ASSERT:
        (void)eval(c, tdx_src_kid(s, TDX_SRC_R_TEST));
        break;
    default:
        break;
    }
}

static void walk_block(ctx *c, const tdx_src_node *parent, tdx_src_role role)
{
    for (const tdx_src_node *s = tdx_src_next(parent, role, NULL); s && !c->st;
         s = tdx_src_next(parent, role, s)) {
        if (c->helper && --*c->budget < 0)
            return; /* out of helper budget: the kernel's own statements go on */
        stmt(c, s);
    }
}

tdx_status tdx_km_eval_kernel(tdx_km_file *f, tdx_km_kernel *k, tdx_arena *arena)
{
    env e = {0};
    ctx c = {0};
    long budget = MAX_STMTS;
    c.budget = &budget;
    c.f = f;
    c.k = k;
    c.arena = arena;
    c.env = &e;
    for (size_t i = 0; i < k->nparams; i++) {
        tdx_km_param *p = &k->params[i];
        tdx_km_val v = v_none();
        if (p->kind == TDX_KM_PARAM_CONSTEXPR) {
            v.flags = TDX_KM_V_CONSTEXPR;
        } else {
            v.flags = TDX_KM_V_RUNTIME;
            v.param = p->name;
        }
        bind(&c, p->name, v);
    }
    walk_block(&c, k->def, TDX_SRC_R_BODY);
    return c.st;
}
