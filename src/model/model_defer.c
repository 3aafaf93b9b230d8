/* Reductions that a loop makes of every iteration's tile, deferrable to one
 * reduction after the loop.
 *
 * tl.sum / tl.max / tl.min of a tile spread over several warps lowers to a
 * shuffle tree within each warp, then an exchange of the warps' partial
 * results through shared memory between barriers
 * (lib/Conversion/TritonGPUToLLVM/ReduceOpToLLVM.cpp: reduceWithinWarps,
 * storeWarpReduceToSharedMemory, accumulatePartialReductions). Inside a
 * loop that carries a scalar accumulator (`acc += tl.sum(x, axis=0)` over
 * column blocks), every iteration pays the exchange and its barriers, and
 * the next iteration's loaded values wait behind them. An elementwise
 * accumulator of the tile's shape takes each tile with one add (or
 * maximum) per element in registers, and the one cross-warp reduction
 * follows the loop -- the form torch Inductor emits for looped reductions.
 *
 * The statements are recognised here, from the syntax tree and the folded
 * reduction inputs, so that the defer-reduction family (which rewrites them)
 * and rule TDX021 (which reports them) see the same ones. */
#include <string.h>

#include "model/model_ctx.h"

const char *tdx_km_update_of(const tdx_src_node *stmt, tdx_km_update_op *op, const tdx_src_node **e)
{
    const tdx_src_node *tg = stmt ? tdx_src_kid(stmt, TDX_SRC_R_TARGET) : NULL;
    const tdx_src_node *v = stmt ? tdx_src_kid(stmt, TDX_SRC_R_VALUE) : NULL;
    *e = NULL;
    if (!tdx_src_is_name(tg, NULL) || !v || tdx_src_next(stmt, TDX_SRC_R_TARGET, tg))
        return NULL;
    if (stmt->kind == TDX_SRC_AUGASSIGN && stmt->op == TDX_OP_PLUS) {
        *op = TDX_KM_UPDATE_SUM;
        *e = v;
    } else if (stmt->kind == TDX_SRC_ASSIGN && v->kind == TDX_SRC_BINOP && v->op == TDX_OP_PLUS) {
        const tdx_src_node *l = tdx_src_kid(v, TDX_SRC_R_LEFT), *r = tdx_src_kid(v, TDX_SRC_R_RIGHT);
        *op = TDX_KM_UPDATE_SUM;
        *e = tdx_src_is_name(l, tg->name) ? r : tdx_src_is_name(r, tg->name) ? l : NULL;
    } else if (stmt->kind == TDX_SRC_ASSIGN && v->kind == TDX_SRC_CALL && tdx_src_call_nargs(v) == 2 &&
               (tdx_src_is_dotted(tdx_src_call_func(v), "tl.maximum") ||
                tdx_src_is_dotted(tdx_src_call_func(v), "tl.minimum"))) {
        const tdx_src_node *a = tdx_src_call_arg(v, 0), *b = tdx_src_call_arg(v, 1);
        *op = tdx_src_is_dotted(tdx_src_call_func(v), "tl.maximum") ? TDX_KM_UPDATE_MAX : TDX_KM_UPDATE_MIN;
        *e = tdx_src_is_name(a, tg->name) ? b : tdx_src_is_name(b, tg->name) ? a : NULL;
    }
    return *e ? tg->name : NULL;
}

static const tdx_src_node *enclosing_def(const tdx_src_node *n)
{
    for (n = n ? n->parent : NULL; n; n = n->parent)
        if (n->kind == TDX_SRC_FUNCDEF)
            return n;
    return NULL;
}

/* Non-zero when the text of n contains s. */
static int text_has(const tdx_src_module *m, const tdx_src_node *n, const char *s)
{
    size_t len, sl = strlen(s);
    const char *x = tdx_src_text(m, n, &len);
    for (size_t i = 0; i + sl <= len; i++)
        if (memcmp(x + i, s, sl) == 0)
            return 1;
    return 0;
}

/* A float literal (0.0, 1e-6, .5 -- not an integer, not imaginary) or
 * float("...") (inf, nan). */
static int float_atom(const tdx_src_module *m, const tdx_src_node *e)
{
    double d;
    if (e->kind == TDX_SRC_NUMBER)
        return (text_has(m, e, ".") || ((text_has(m, e, "e") || text_has(m, e, "E")) && !text_has(m, e, "x") &&
                                        !text_has(m, e, "X"))) &&
               !text_has(m, e, "j") && !text_has(m, e, "J") && tdx_src_number_value(m, e, &d) == TDX_OK;
    return e->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(e), "float") &&
           tdx_src_call_nargs(e) == 1 && !tdx_src_kid(e, TDX_SRC_R_KEYWORD) &&
           tdx_src_call_arg(e, 0)->kind == TDX_SRC_STRING;
}

/* The value an accumulator starts from is a float, so that an fp32 tile
 * accumulator reduced into it after the loop keeps its type: a float atom,
 * its negation, or tl.zeros / tl.full naming tl.float32. */
static int float_init(const tdx_src_module *m, const tdx_src_node *e)
{
    if (!e)
        return 0;
    if (e->kind == TDX_SRC_UNARYOP && (e->op == TDX_OP_MINUS || e->op == TDX_OP_PLUS))
        e = tdx_src_kid(e, TDX_SRC_R_OPERAND);
    if (!e)
        return 0;
    if (float_atom(m, e))
        return 1;
    const tdx_src_node *fn = tdx_src_call_func(e);
    return fn && (tdx_src_is_dotted(fn, "tl.zeros") || tdx_src_is_dotted(fn, "tl.full")) &&
           text_has(m, e, "tl.float32");
}

/* Non-zero when the reduction call takes its first argument's every axis:
 * only the input and `axis`, which is absent or None, or for a 1-D tile 0
 * or -1. */
static int reduces_all(const tdx_src_module *m, const tdx_src_node *call, int rank)
{
    size_t na = tdx_src_call_nargs(call);
    const tdx_src_node *kwax = NULL;
    for (tdx_src_node *kw = tdx_src_next(call, TDX_SRC_R_KEYWORD, NULL); kw;
         kw = tdx_src_next(call, TDX_SRC_R_KEYWORD, kw)) {
        if (!kw->name || strcmp(kw->name, "axis") != 0)
            return 0; /* keep_dims, return_indices, ...: another result shape */
        kwax = tdx_src_kid(kw, TDX_SRC_R_VALUE);
    }
    if (na < 1 || na > 2 || (na == 2 && kwax) || tdx_src_call_arg(call, 0)->kind == TDX_SRC_STARRED)
        return 0;
    const tdx_src_node *ax = na == 2 ? tdx_src_call_arg(call, 1) : kwax;
    long long v;
    if (!ax || tdx_km_is_const_named(ax, "None"))
        return 1;
    return rank == 1 && tdx_src_int_value(m, ax, &v) == TDX_OK && (v == 0 || v == -1);
}

/* A reduction of one axis of a 2-D tile: the input and an integer axis
 * (positional or axis=, negative from the right), nothing else; 1 with
 * *axis set from the left. Not of 3-D tiles: a broadcast product reduced
 * over its middle axis (a dot written by hand) would keep a BM x BK x BN
 * accumulator. */
static int one_axis(const tdx_src_module *m, const tdx_src_node *call, int rank, int *axis)
{
    size_t na = tdx_src_call_nargs(call);
    const tdx_src_node *ax = na == 2 ? tdx_src_call_arg(call, 1) : NULL;
    for (tdx_src_node *kw = tdx_src_next(call, TDX_SRC_R_KEYWORD, NULL); kw;
         kw = tdx_src_next(call, TDX_SRC_R_KEYWORD, kw)) {
        if (!kw->name || strcmp(kw->name, "axis") != 0 || ax)
            return 0;
        ax = tdx_src_kid(kw, TDX_SRC_R_VALUE);
    }
    long long v;
    if (rank != 2 || na < 1 || na > 2 || !ax || tdx_src_int_value(m, ax, &v) != TDX_OK || v < -rank || v >= rank)
        return 0;
    *axis = (int)(v < 0 ? v + rank : v);
    return 1;
}

/* The accumulator starts as a tile: tl.zeros(...) or tl.full(...). */
static int tile_init(const tdx_src_node *e)
{
    const tdx_src_node *fn = e ? tdx_src_call_func(e) : NULL;
    return fn && (tdx_src_is_dotted(fn, "tl.zeros") || tdx_src_is_dotted(fn, "tl.full"));
}

/* An axis size whose text means the same before the loop: a positive
 * integer literal, or a constexpr parameter of the kernel never rebound in
 * it; when it is a tl.arange end, the range starts at 0. */
static int known_size(const tdx_src_module *m, const tdx_km_kernel *k, const tdx_src_node *size)
{
    long long v;
    if (!size || enclosing_def(size) != k->def)
        return 0; /* a size written in a helper names the helper's parameters */
    if (size->kind == TDX_SRC_NUMBER) {
        if (tdx_src_int_value(m, size, &v) != TDX_OK || v <= 0)
            return 0;
    } else if (tdx_src_is_name(size, NULL)) {
        const tdx_km_param *p = tdx_km_param_find(k, size->name);
        int found = 0;
        (void)tdx_km_binding_of(k->def, size->name, NULL, &found);
        if (!p || p->kind != TDX_KM_PARAM_CONSTEXPR || found)
            return 0;
    } else {
        return 0;
    }
    const tdx_src_node *call = size->parent;
    if (call && call->kind == TDX_SRC_KEYWORD)
        call = call->parent;
    const char *tl = call && call->kind == TDX_SRC_CALL ? tdx_km_tl_name(tdx_src_call_func(call)) : NULL;
    if (!tl || strcmp(tl, "arange") != 0)
        return 1; /* a shape entry (tl.zeros, block_shape): the size itself */
    const tdx_src_node *start = tdx_km_arg_or_kw(call, 0, "start");
    return start && start->kind == TDX_SRC_NUMBER && tdx_src_int_value(m, start, &v) == TDX_OK && v == 0;
}

/* Calls (tl.X or x.X) that give a tile another shape than the model
 * follows, and the attribute x.T: the reduced value must hold none. */
static const char *const reshaping[] = {"reshape", "view", "trans", "permute", "broadcast_to", "expand_dims",
                                        "join", "split", "interleave", "ravel", "cat", "gather", "sort",
                                        "histogram", "flip", NULL};

static int reshape_visit(tdx_src_node *n, void *ud)
{
    int *found = ud;
    if (n->kind == TDX_SRC_ATTRIBUTE && n->name && strcmp(n->name, "T") == 0)
        *found = 1;
    const char *nm = n->kind == TDX_SRC_CALL ? tdx_km_last_name(tdx_src_call_func(n)) : NULL;
    for (size_t i = 0; nm && reshaping[i] && !*found; i++)
        *found = strcmp(nm, reshaping[i]) == 0;
    return *found ? -1 : 0;
}

static int reshapes(const tdx_src_node *e)
{
    int found = 0;
    tdx_src_walk((tdx_src_node *)e, reshape_visit, &found);
    return found;
}

/* Non-zero when only blanks precede n on its line. */
static int starts_line(const tdx_src_module *m, const tdx_src_node *n)
{
    for (size_t p = n->start; p > 0 && m->src[p - 1] != '\n'; p--)
        if (m->src[p - 1] != ' ' && m->src[p - 1] != '\t')
            return 0;
    return 1;
}

/* The update statement whose folded-in value is the reduction call, with
 * its operator and accumulator, when the reduction matches the operator. */
static const tdx_src_node *update_stmt(const tdx_src_node *call, tdx_km_update_op *op, const char **acc)
{
    const tdx_src_node *fn = tdx_src_call_func(call), *s = call->parent, *e = NULL;
    tdx_km_update_op want = tdx_src_is_dotted(fn, "tl.sum")   ? TDX_KM_UPDATE_SUM
                            : tdx_src_is_dotted(fn, "tl.max") ? TDX_KM_UPDATE_MAX
                            : tdx_src_is_dotted(fn, "tl.min") ? TDX_KM_UPDATE_MIN
                                                              : (tdx_km_update_op)0;
    if (!want || !s)
        return NULL;
    if (s->kind == TDX_SRC_BINOP || s->kind == TDX_SRC_CALL) {
        /* tl.maximum(m, tl.max(x)) with a keyword (propagate_nan) is another operation */
        if (s->kind == TDX_SRC_CALL && tdx_src_kid(s, TDX_SRC_R_KEYWORD))
            return NULL;
        s = s->parent;
    }
    *acc = tdx_km_update_of(s, op, &e);
    return *acc && e == call && *op == want ? s : NULL;
}

int tdx_km_deferred_shape(const tdx_src_module *m, const tdx_km_deferred *d, const char *sep, char *buf,
                          size_t cap)
{
    size_t used = 0, sl = strlen(sep);
    if (!cap)
        return 0;
    buf[0] = '\0';
    for (int a = 0; a < d->rank; a++) {
        size_t l;
        const char *s = tdx_src_text(m, d->shape[a], &l);
        if (used + (a ? sl : 0) + l + 1 > cap)
            return 0;
        if (a) {
            memcpy(buf + used, sep, sl);
            used += sl;
        }
        memcpy(buf + used, s, l);
        used += l;
        buf[used] = '\0';
    }
    return 1;
}

int tdx_km_loop_has_dot(const tdx_km_kernel *k, const tdx_src_node *loop)
{
    for (size_t j = 0; k && loop && j < k->ops.len; j++) {
        const tdx_km_op *op = k->ops.items[j];
        if (op->kind == TDX_KM_OP_DOT && op->call && op->call->start >= loop->start && op->call->end <= loop->end)
            return 1;
    }
    return 0;
}

size_t tdx_km_deferrable(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_deferred *out, size_t max)
{
    size_t n = 0;
    if (!f || !k || k->is_helper)
        return 0;
    const tdx_src_module *m = f->mod;
    for (size_t i = 0; i < k->ops.len && n < max; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind != TDX_KM_OP_REDUCE || !op->call)
            continue;
        tdx_km_update_op upd;
        const char *acc = NULL;
        const tdx_src_node *s = update_stmt(op->call, &upd, &acc);
        const tdx_src_node *loop = s ? s->parent : NULL;
        if (!s || s->role != TDX_SRC_R_BODY || !loop || loop->kind != TDX_SRC_FOR ||
            tdx_src_kid(loop, TDX_SRC_R_ORELSE) || enclosing_def(loop) != k->def || !starts_line(m, loop) ||
            tdx_km_loop_has_dot(k, loop))
            continue; /* a dot loop's reductions wait on the MMA anyway (and feed the online softmax) */
        /* the statement is the accumulator's one read and write in the loop */
        if (tdx_src_count_name(loop, acc) != (s->kind == TDX_SRC_AUGASSIGN ? 1 : 2))
            continue;
        int found = 0;
        const tdx_src_node *init = tdx_km_binding_of(k->def, acc, loop, &found);
        if (!float_init(m, init) || !found)
            continue;
        const tdx_src_node *x = tdx_src_call_arg(op->call, 0);
        int rank = op->input.rank, axis = -1;
        if (!x || rank < 1 || rank > TDX_KM_MAXRANK || reshapes(x))
            continue;
        /* every axis into a scalar, or one axis of a tile into a tile the
         * accumulator already is (tl.zeros / tl.full before the loop) */
        if (!reduces_all(m, op->call, rank) && !(one_axis(m, op->call, rank, &axis) && tile_init(init)))
            continue;
        tdx_km_deferred d = {op, upd, s, loop, x, acc, rank, axis, {0}};
        int ok = 1;
        for (int a = 0; a < rank && ok; a++) {
            d.shape[a] = op->input.axis[rank - 1 - a].size; /* axes are kept from the right */
            ok = known_size(m, k, d.shape[a]);
        }
        if (ok)
            out[n++] = d;
    }
    return n;
}
