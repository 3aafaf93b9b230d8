/* Folding calls inside a kernel: tl.load / tl.store / atomics and tensor
 * descriptors (the accesses), tl.dot, reductions, scans, math functions,
 * casts, and helper @triton.jit functions (folded in with their parameters
 * bound to the arguments). */
#include <string.h>

#include "model/model_ctx.h"

// Append op to the kernel's ops.
static tdx_status push_op(tdx_km_ctx *c, tdx_km_op *op)
{
    if (tdx_ptrvec_push(c->arena, &c->k->ops, op) != 0)
        return c->st = TDX_ERR_NOMEM;
    return TDX_OK;
}

// A new op of kind at call, in the current loop.
tdx_km_op *tdx_km_new_op(tdx_km_ctx *c, tdx_km_op_kind kind, const char *name, const tdx_src_node *call)
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
const tdx_src_node *tdx_km_arg_or_kw(const tdx_src_node *call, size_t i, const char *kw)
{
    const tdx_src_node *a = kw ? tdx_src_call_kwarg(call, kw) : NULL;
    if (a)
        return a;
    return tdx_src_call_arg(call, i);
}

// Evaluate every argument and keyword of a call and merge them.
tdx_km_val tdx_km_merge_args(tdx_km_ctx *c, const tdx_src_node *call)
{
    tdx_km_val v = tdx_km_v_none();
    int first = 1;
    for (uint32_t i = 0; i < call->nkids; i++) {
        const tdx_src_node *a = call->kids[i];
        if (a->role == TDX_SRC_R_FUNC)
            continue;
        if (a->kind == TDX_SRC_KEYWORD)
            a = tdx_src_kid(a, TDX_SRC_R_VALUE);
        if (!a)
            continue;
        tdx_km_val x = tdx_km_eval_expr(c, a);
        if (first)
            v = x, first = 0;
        else
            v = tdx_km_merge(&v, &x);
        tdx_km_mark_epilogue(&v, &x, &x);
    }
    v.base = NULL;
    v.param = NULL;
    v.flags &= ~(TDX_KM_V_CONST | TDX_KM_V_ZEROS);
    return v;
}

// Fold n to an integer inside the kernel (literals, constants, arithmetic).
int tdx_km_fold_small(tdx_km_ctx *c, const tdx_src_node *n, long long *out)
{
    if (!n)
        return 0;
    tdx_km_val v = tdx_km_eval_expr(c, n);
    if (v.flags & TDX_KM_V_CONST) {
        *out = v.ival;
        return 1;
    }
    return 0;
}

// A tl.load / tl.store / tl.atomic_* call.
static tdx_km_val access(tdx_km_ctx *c, const tdx_src_node *call, tdx_km_access_kind kind,
                         const char *op)
{
    tdx_km_access *a = tdx_arena_alloc(c->arena, sizeof *a);
    if (!a) {
        c->st = TDX_ERR_NOMEM;
        return tdx_km_v_none();
    }
    a->kind = kind;
    a->op = op;
    a->call = call;
    a->ptr = tdx_km_arg_or_kw(call, 0, "pointer");
    a->loop = c->loop;
    a->helper = c->helper;
    if (a->ptr)
        a->addr = tdx_km_eval_expr(c, a->ptr);
    if (kind == TDX_KM_LOAD) {
        a->mask = tdx_km_arg_or_kw(call, 1, "mask");
        a->other = tdx_km_arg_or_kw(call, 2, "other");
    } else {
        const tdx_src_node *val = tdx_km_arg_or_kw(call, 1, "val");
        if (!val)
            val = tdx_src_call_kwarg(call, "value");
        if (val)
            a->value = tdx_km_eval_expr(c, val);
        a->mask = tdx_km_arg_or_kw(call, 2, "mask");
    }
    if (a->mask)
        a->maskv = tdx_km_eval_expr(c, a->mask);
    if (a->other)
        (void)tdx_km_eval_expr(c, a->other);
    c->k->pid_addr |= a->addr.pids;
    if (tdx_ptrvec_push(c->arena, &c->k->accesses, a) != 0) {
        c->st = TDX_ERR_NOMEM;
        return tdx_km_v_none();
    }
    if (kind == TDX_KM_STORE)
        return tdx_km_v_none();
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
static tdx_km_val desc_access(tdx_km_ctx *c, const tdx_src_node *call, tdx_km_access_kind kind,
                              const tdx_src_node *desc, const tdx_src_node *value)
{
    tdx_km_access *a = tdx_arena_alloc(c->arena, sizeof *a);
    if (!a) {
        c->st = TDX_ERR_NOMEM;
        return tdx_km_v_none();
    }
    a->kind = kind;
    a->op = kind == TDX_KM_LOAD ? "load" : "store";
    a->call = call;
    a->ptr = desc;
    a->loop = c->loop;
    a->helper = c->helper;
    if (desc)
        a->addr = tdx_km_eval_expr(c, desc);
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
        tdx_km_val v = tdx_km_eval_expr(c, x);
        if (x == value)
            a->value = v;
        c->k->pid_tiled |= v.pids;
        c->k->pid_addr |= v.pids;
    }
    if (tdx_ptrvec_push(c->arena, &c->k->accesses, a) != 0) {
        c->st = TDX_ERR_NOMEM;
        return tdx_km_v_none();
    }
    if (kind != TDX_KM_LOAD)
        return tdx_km_v_none();
    tdx_km_val r = tdx_km_v_none();
    r.flags = TDX_KM_V_DATA;
    r.rank = a->addr.rank;
    memcpy(r.axis, a->addr.axis, sizeof r.axis);
    return r;
}

// The rank and axis sizes of a shape argument: (BLOCK_M, BLOCK_N) or [BLOCK].
static void shape_axes(tdx_km_ctx *c, const tdx_src_node *shape, tdx_km_val *v)
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
            (void)tdx_km_eval_expr(c, shape->kids[r - 1 - i]);
        }
    } else {
        v->rank = 1;
        v->axis[0].size = shape;
    }
}

// tl.dot(a, b, acc=None, input_precision=None, allow_tf32=None, ...).
static tdx_km_val dot(tdx_km_ctx *c, const tdx_src_node *call)
{
    const tdx_src_node *an = tdx_km_arg_or_kw(call, 0, "input"), *bn = tdx_km_arg_or_kw(call, 1, "other");
    const tdx_src_node *accn = tdx_km_arg_or_kw(call, 2, "acc");
    tdx_km_val a = an ? tdx_km_eval_expr(c, an) : tdx_km_v_none();
    tdx_km_val b = bn ? tdx_km_eval_expr(c, bn) : tdx_km_v_none();
    tdx_km_val acc = accn ? tdx_km_eval_expr(c, accn) : tdx_km_v_none();
    tdx_km_op *op = tdx_km_new_op(c, TDX_KM_OP_DOT, "dot", call);
    if (!op)
        return tdx_km_v_none();
    const tdx_src_node *ip = tdx_km_arg_or_kw(call, 3, "input_precision");
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
    tdx_km_val v = tdx_km_merge(&a, &b);
    if (accn)
        v = tdx_km_merge(&v, &acc);
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
static tdx_km_val reduce(tdx_km_ctx *c, const tdx_src_node *call, const char *name,
                         const tdx_src_node *input, const tdx_src_node *axisn)
{
    tdx_km_val in = input ? tdx_km_eval_expr(c, input) : tdx_km_v_none();
    tdx_km_op *op = tdx_km_new_op(c, TDX_KM_OP_REDUCE, name, call);
    if (!op)
        return tdx_km_v_none();
    long long ax;
    if (axisn && !tdx_km_is_const_named(axisn, "None") && tdx_km_fold_small(c, axisn, &ax))
        op->axis = (int)ax;
    op->input = in;
    tdx_km_val v = in;
    v.flags = (in.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME | TDX_KM_V_DOT | TDX_KM_V_EPI)) |
              TDX_KM_V_REDUCED;
    v.base = v.param = NULL;
    /* an axis the input does not have (Triton rejects it) reduces to a scalar here */
    if (op->axis < 0 || in.rank <= 1 || op->axis >= in.rank) {
        v.rank = 0;
        memset(v.axis, 0, sizeof v.axis);
    } else {
        int ax_left = op->axis;
        int r = in.rank - 1 - ax_left; /* from the right */
        for (int i = r; i + 1 < TDX_KM_MAXRANK; i++)
            v.axis[i] = in.axis[i + 1];
        memset(&v.axis[TDX_KM_MAXRANK - 1], 0, sizeof v.axis[0]);
        v.rank = in.rank - 1;
    }
    return v;
}

// Non-zero when s is one of the NULL-terminated list.
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


// The dtype argument of .to(dtype) / tl.cast(x, dtype).
static void cast_flags(tdx_km_ctx *c, const tdx_src_node *call, const tdx_src_node *dtype, tdx_km_val *v)
{
    if (!dtype)
        return;
    if (tdx_km_is_int64_dtype(dtype)) {
        tdx_km_op *op = tdx_km_new_op(c, TDX_KM_OP_INT64, "int64", call);
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
tdx_km_val tdx_km_call(tdx_km_ctx *c, const tdx_src_node *n)
{
    const tdx_src_node *fn = tdx_src_call_func(n);
    if (!fn)
        return tdx_km_v_none();
    const char *tl = tdx_km_tl_name(fn);
    if (tl) {
        if (strcmp(tl, "arange") == 0) {
            tdx_km_val v = tdx_km_v_none();
            v.flags = TDX_KM_V_ARANGE | TDX_KM_V_CONSTEXPR;
            v.rank = 1;
            v.axis[0].mult = TDX_KM_MULT_UNIT;
            v.axis[0].size = tdx_km_arg_or_kw(n, 1, "end");
            return v;
        }
        if (strcmp(tl, "program_id") == 0) {
            tdx_km_val v = tdx_km_v_none();
            long long ax = 0;
            const tdx_src_node *a = tdx_km_arg_or_kw(n, 0, "axis");
            if (a && !tdx_km_fold_small(c, a, &ax))
                ax = 0;
            if (ax < 0 || ax > 2)
                ax = 0;
            v.flags = TDX_KM_V_PID;
            v.pids = 1u << ax;
            c->k->pid_axes |= v.pids;
            return v;
        }
        if (strcmp(tl, "num_programs") == 0) {
            tdx_km_val v = tdx_km_v_none();
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
            const tdx_src_node *base = tdx_km_arg_or_kw(n, 0, "base");
            tdx_km_val b = base ? tdx_km_eval_expr(c, base) : tdx_km_v_none();
            tdx_km_val o = tdx_km_merge_args(c, n);
            tdx_km_val v = tdx_km_v_none();
            v.flags = TDX_KM_V_BLOCKPTR | (o.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME));
            v.base = b.base ? b.base : b.param;
            shape_axes(c, tdx_km_arg_or_kw(n, 3, "block_shape"), &v);
            for (int i = 0; i < v.rank; i++)
                v.axis[i].mult = i == 0 ? TDX_KM_MULT_UNIT : TDX_KM_MULT_OTHER;
            return v;
        }
        if (strcmp(tl, "dot") == 0 || strcmp(tl, "dot_scaled") == 0)
            return dot(c, n);
        if (name_in(tl, REDUCTIONS))
            return reduce(c, n, tl, tdx_km_arg_or_kw(n, 0, "input"), tdx_km_arg_or_kw(n, 1, "axis"));
        if (name_in(tl, SCANS)) {
            tdx_km_val v = tdx_km_merge_args(c, n);
            tdx_km_op *op = tdx_km_new_op(c, TDX_KM_OP_SCAN, tl, n);
            if (op)
                op->input = v;
            return v;
        }
        if (strcmp(tl, "zeros") == 0 || strcmp(tl, "full") == 0) {
            tdx_km_val v = tdx_km_v_none();
            if (strcmp(tl, "full") == 0) {
                const tdx_src_node *val = tdx_km_arg_or_kw(n, 1, "value");
                if (val)
                    (void)tdx_km_eval_expr(c, val);
            }
            v.flags = TDX_KM_V_ZEROS;
            shape_axes(c, tdx_km_arg_or_kw(n, 0, "shape"), &v);
            return v;
        }
        if (strcmp(tl, "zeros_like") == 0 || strcmp(tl, "full_like") == 0) {
            tdx_km_val v = tdx_km_merge_args(c, n);
            v.flags = TDX_KM_V_ZEROS;
            return v;
        }
        if (strcmp(tl, "make_block_ptr") == 0) {
            const tdx_src_node *base = tdx_km_arg_or_kw(n, 0, "base");
            tdx_km_val b = base ? tdx_km_eval_expr(c, base) : tdx_km_v_none();
            tdx_km_val o = tdx_km_merge_args(c, n);
            tdx_km_val v = tdx_km_v_none();
            v.flags = TDX_KM_V_BLOCKPTR | (o.flags & (TDX_KM_V_PID | TDX_KM_V_RUNTIME));
            v.pids = o.pids;
            v.loops = o.loops;
            v.base = b.base ? b.base : b.param;
            shape_axes(c, tdx_km_arg_or_kw(n, 5, "block_shape"), &v);
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
            tdx_km_val v = a0 ? tdx_km_eval_expr(c, a0) : tdx_km_v_none();
            for (size_t i = 1; i < tdx_src_call_nargs(n); i++)
                (void)tdx_km_eval_expr(c, tdx_src_call_arg(n, i));
            return v;
        }
        if (strcmp(tl, "trans") == 0 || strcmp(tl, "permute") == 0) {
            const tdx_src_node *a0 = tdx_src_call_arg(n, 0);
            tdx_km_val v = a0 ? tdx_km_eval_expr(c, a0) : tdx_km_v_none();
            if (v.rank >= 2) {
                tdx_km_axis t = v.axis[0];
                v.axis[0] = v.axis[1];
                v.axis[1] = t;
            }
            return v;
        }
        if (strcmp(tl, "cast") == 0) {
            const tdx_src_node *a0 = tdx_km_arg_or_kw(n, 0, "input");
            tdx_km_val v = a0 ? tdx_km_eval_expr(c, a0) : tdx_km_v_none();
            cast_flags(c, n, tdx_km_arg_or_kw(n, 1, "dtype"), &v);
            return v;
        }
        if (strcmp(tl, "cdiv") == 0) {
            const tdx_src_node *x = tdx_src_call_arg(n, 0), *y = tdx_src_call_arg(n, 1);
            tdx_km_val a = x ? tdx_km_eval_expr(c, x) : tdx_km_v_none(), b = y ? tdx_km_eval_expr(c, y) : tdx_km_v_none();
            tdx_km_val v = tdx_km_merge(&a, &b);
            if ((a.flags & b.flags & TDX_KM_V_CONST) && b.ival > 0 && a.ival >= 0) {
                v.flags |= TDX_KM_V_CONST | TDX_KM_V_CONSTEXPR;
                v.ival = a.ival / b.ival + (a.ival % b.ival != 0); /* no a + b - 1 to overflow */
            }
            return v;
        }
        if (strcmp(tl, "static_print") == 0 || strcmp(tl, "static_assert") == 0 ||
            strcmp(tl, "device_print") == 0 || strcmp(tl, "device_assert") == 0 ||
            strcmp(tl, "debug_barrier") == 0)
            return tdx_km_v_none();
        tdx_km_val v = tdx_km_merge_args(c, n);
        if (name_in(tl, MATH))
            (void)tdx_km_new_op(c, TDX_KM_OP_MATH, tl, n);
        if (strcmp(tl, "rand") == 0 || strcmp(tl, "randn") == 0 || strcmp(tl, "randint") == 0)
            v.flags |= TDX_KM_V_RUNTIME;
        return v;
    }
    /* helper @triton.jit functions, called by name */
    if (fn->kind == TDX_SRC_NAME && fn->name) {
        tdx_km_kernel *h = tdx_km_kernel_named(c->f, fn->name);
        if (h && h != c->k && h->def != c->helper)
            return tdx_km_inline_helper(c, h, n);
        if (strcmp(fn->name, "min") == 0 || strcmp(fn->name, "max") == 0) {
            tdx_km_val v = tdx_km_merge_args(c, n);
            long long best = 0;
            int all = 1;
            for (size_t i = 0; i < tdx_src_call_nargs(n); i++) {
                long long x;
                if (!tdx_km_fold_small(c, tdx_src_call_arg(n, i), &x)) {
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
        return tdx_km_merge_args(c, n);
    }
    /* methods on values: x.to(...), x.sum(axis=...), ptr.dtype ... */
    if (fn->kind == TDX_SRC_ATTRIBUTE && fn->name) {
        const tdx_src_node *obj = tdx_src_kid(fn, TDX_SRC_R_VALUE);
        if (strcmp(fn->name, "to") == 0) {
            tdx_km_val v = obj ? tdx_km_eval_expr(c, obj) : tdx_km_v_none();
            cast_flags(c, n, tdx_km_arg_or_kw(n, 0, "dtype"), &v);
            return v;
        }
        if (name_in(fn->name, REDUCTIONS))
            return reduce(c, n, fn->name, obj, tdx_km_arg_or_kw(n, 0, "axis"));
        if (strcmp(fn->name, "load") == 0)
            return desc_access(c, n, TDX_KM_LOAD, obj, NULL);
        if (strcmp(fn->name, "store") == 0)
            return desc_access(c, n, TDX_KM_STORE, obj, tdx_km_arg_or_kw(n, 1, "value"));
        if (name_in(fn->name, SCANS)) {
            tdx_km_val v = obj ? tdx_km_eval_expr(c, obj) : tdx_km_v_none();
            tdx_km_op *op = tdx_km_new_op(c, TDX_KM_OP_SCAN, fn->name, n);
            if (op)
                op->input = v;
            return v;
        }
        tdx_km_val v = obj ? tdx_km_eval_expr(c, obj) : tdx_km_v_none();
        tdx_km_val a = tdx_km_merge_args(c, n);
        v = tdx_km_merge(&v, &a);
        v.flags &= ~TDX_KM_V_CONST;
        return v;
    }
    return tdx_km_merge_args(c, n);
}

// Fold a helper's body with its parameters bound to the call's arguments.
tdx_km_val tdx_km_inline_helper(tdx_km_ctx *c, tdx_km_kernel *h, const tdx_src_node *n)
{
    tdx_km_op *op = tdx_km_new_op(c, TDX_KM_OP_HELPER, h->name, n);
    if (!op)
        return tdx_km_v_none();
    /* arguments are evaluated in the caller's scope */
    tdx_km_val *args = tdx_arena_alloc(c->arena, (h->nparams + 1) * sizeof *args);
    if (!args) {
        c->st = TDX_ERR_NOMEM;
        return tdx_km_v_none();
    }
    int dot_in = 0;
    for (size_t i = 0; i < h->nparams; i++) {
        const tdx_src_node *a = i < tdx_src_call_nargs(n) ? tdx_src_call_arg(n, i) : NULL;
        if (!a)
            a = tdx_src_call_kwarg(n, h->params[i].name);
        if (a && a->kind != TDX_SRC_STARRED)
            args[i] = tdx_km_eval_expr(c, a);
        else if (h->params[i].has_default_value)
            args[i] = tdx_km_v_const(h->params[i].default_value);
        else
            args[i] = tdx_km_v_none();
        if (args[i].flags & TDX_KM_V_DOT)
            dot_in = 1;
    }
    if (c->depth >= MAX_INLINE_DEPTH)
        return tdx_km_v_none();
    if (tdx_ptrvec_push(c->arena, &c->k->helpers, (void *)h->def) != 0) {
        c->st = TDX_ERR_NOMEM;
        return tdx_km_v_none();
    }
    tdx_km_env e = {0};
    tdx_km_ctx sub = *c;
    sub.env = &e;
    sub.helper = h->def;
    sub.depth = c->depth + 1;
    sub.has_ret = 0;
    sub.ret = tdx_km_v_none();
    for (size_t i = 0; i < h->nparams; i++)
        tdx_km_bind(&sub, h->params[i].name, args[i]);
    tdx_km_walk_block(&sub, h->def, TDX_SRC_R_BODY);
    c->st = sub.st;
    tdx_km_val r = sub.has_ret ? sub.ret : tdx_km_v_none();
    if (dot_in && (r.flags & TDX_KM_V_DOT))
        r.flags |= TDX_KM_V_EPI;
    return r;
}
