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
 * A running arg-max pays two such reductions an iteration (tl.max and
 * tl.argmax); its deferred form keeps, per lane, the best value and the
 * index where it first came, and finds the first index of the maximum
 * among the lanes after the loop (tdx_km_argdeferrable).
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

/* Where d's maximum or minimum widens a load to fp32 (tdx_km_deferred.widened). */
static void find_widened(const tdx_src_module *m, const tdx_km_kernel *k, tdx_km_deferred *d)
{
    const tdx_src_node *x = d->value;
    if (d->update == TDX_KM_UPDATE_SUM || x->kind != TDX_SRC_CALL)
        return;
    const tdx_src_node *f = tdx_src_call_func(x), *v = f ? tdx_src_kid(f, TDX_SRC_R_VALUE) : NULL;
    if (!f || f->kind != TDX_SRC_ATTRIBUTE || !f->name || strcmp(f->name, "to") != 0 || !v ||
        v->kind != TDX_SRC_NAME || tdx_src_call_nargs(x) != 1 || tdx_src_kid(x, TDX_SRC_R_KEYWORD) ||
        !tdx_src_is_dotted(tdx_src_call_arg(x, 0), "tl.float32") || tdx_src_count_bindings(d->loop, v->name) != 1)
        return;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        const tdx_src_node *as = a->call ? a->call->parent : NULL;
        if (a->kind == TDX_KM_LOAD && a->addr.base && !a->helper && as && as->kind == TDX_SRC_ASSIGN &&
            as->parent == d->loop && tdx_src_kid(as, TDX_SRC_R_VALUE) == a->call &&
            tdx_src_is_name(tdx_src_kid(as, TDX_SRC_R_TARGET), v->name) &&
            !tdx_src_next(as, TDX_SRC_R_TARGET, tdx_src_kid(as, TDX_SRC_R_TARGET)) && float_init(m, a->other)) {
            d->widened = v->name;
            d->widened_base = a->addr.base;
            return;
        }
    }
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
        tdx_km_deferred d = {op, upd, s, loop, x, acc, rank, axis, {0}, NULL, NULL};
        int ok = 1;
        for (int a = 0; a < rank && ok; a++) {
            d.shape[a] = op->input.axis[rank - 1 - a].size; /* axes are kept from the right */
            ok = known_size(m, k, d.shape[a]);
        }
        if (ok) {
            find_widened(m, k, &d);
            out[n++] = d;
        }
    }
    return n;
}

/* ---- the running arg-max ---------------------------------------------- */

/* The value of `T = value`, a plain name the only target (its name into
 * *target); NULL for any other statement. */
static const tdx_src_node *plain_assign(const tdx_src_node *s, const char **target)
{
    const tdx_src_node *tg = s && s->kind == TDX_SRC_ASSIGN ? tdx_src_kid(s, TDX_SRC_R_TARGET) : NULL;
    if (!tg || !tdx_src_is_name(tg, NULL) || tdx_src_next(s, TDX_SRC_R_TARGET, tg))
        return NULL;
    *target = tg->name;
    return tdx_src_kid(s, TDX_SRC_R_VALUE);
}

/* Non-zero when statement s has its lines to itself: only blanks before it
 * on its first line, only blanks and maybe a comment after it on its last,
 * so that the line can go or be replaced whole. */
static int own_lines(const tdx_src_module *m, const tdx_src_node *s)
{
    if (!starts_line(m, s))
        return 0;
    for (size_t p = s->end; p < m->len && m->src[p] != '\n' && m->src[p] != '#'; p++)
        if (m->src[p] != ' ' && m->src[p] != '\t' && m->src[p] != '\r')
            return 0;
    return 1;
}

/* Non-zero when s[0, l) is word in any case. */
static int same_word(const char *s, size_t l, const char *word)
{
    if (l != strlen(word))
        return 0;
    for (size_t i = 0; i < l; i++)
        if ((s[i] | 0x20) != word[i])
            return 0;
    return 1;
}

/* A float that is no NaN, maybe negated: a float literal, or float("inf")
 * / float("-inf") / float("infinity") in any case. A NaN compares false
 * with everything, and tl.maximum (maxnum) would replace it with the first
 * block's maximum, so the running best must never start as one. */
static int ordered_float(const tdx_src_module *m, const tdx_src_node *e)
{
    if (e && e->kind == TDX_SRC_UNARYOP && (e->op == TDX_OP_MINUS || e->op == TDX_OP_PLUS))
        e = tdx_src_kid(e, TDX_SRC_R_OPERAND);
    if (!e || !float_atom(m, e))
        return 0;
    if (e->kind == TDX_SRC_NUMBER)
        return 1;
    size_t l;
    const char *s = tdx_src_text(m, tdx_src_call_arg(e, 0), &l);
    if (l < 2 || (s[0] != '"' && s[0] != '\'') || s[l - 1] != s[0])
        return 0; /* a prefix (r"inf") or adjacent literals */
    s++;
    l -= 2;
    if (l && (s[0] == '+' || s[0] == '-')) {
        s++;
        l--;
    }
    return same_word(s, l, "inf") || same_word(s, l, "infinity");
}

/* Non-zero when loop is `for V in range(lo, hi, S)` (or tl.range), S
 * written as size is (the kernel model's parse of the range): the
 * iterations take the tiles one after another, each starting S past the
 * last. */
static int steps_by(const tdx_src_module *m, const tdx_km_kernel *k, const tdx_src_node *loop,
                    const tdx_src_node *size)
{
    for (size_t i = 0; i < k->loops.len; i++) {
        const tdx_km_loop *lp = k->loops.items[i];
        if (lp->node == loop)
            return (lp->kind == TDX_KM_LOOP_RANGE || lp->kind == TDX_KM_LOOP_TL_RANGE) && lp->start && lp->step &&
                   lp->step->kind != TDX_SRC_STARRED && tdx_src_same_text(m, lp->step, size);
    }
    return 0;
}

/* A call fn(args) of n positional arguments and no keyword. */
static int call_of(const tdx_src_node *e, const char *fn, size_t n)
{
    return e && tdx_src_is_dotted(tdx_src_call_func(e), fn) && tdx_src_call_nargs(e) == n &&
           !tdx_src_kid(e, TDX_SRC_R_KEYWORD);
}

/* A name bound once in def, by a statement of the loop's body before
 * `before`, to V + tl.arange(0, S) (either order, S written as size is):
 * each lane's index in the iteration's tile; NULL when there is none. */
static const char *lane_index(const tdx_src_module *m, const tdx_src_node *def, const tdx_src_node *loop,
                              const char *var, const tdx_src_node *size, const tdx_src_node *before)
{
    for (const tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s && s->start < before->start;
         s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        const char *nm = NULL;
        const tdx_src_node *v = plain_assign(s, &nm);
        if (!v || v->kind != TDX_SRC_BINOP || v->op != TDX_OP_PLUS || tdx_src_count_bindings(def, nm) != 1)
            continue;
        const tdx_src_node *l = tdx_src_kid(v, TDX_SRC_R_LEFT), *r = tdx_src_kid(v, TDX_SRC_R_RIGHT);
        const tdx_src_node *ar = tdx_src_is_name(l, var) ? r : tdx_src_is_name(r, var) ? l : NULL;
        long long lo;
        if (call_of(ar, "tl.arange", 2) && tdx_src_int_value(m, tdx_src_call_arg(ar, 0), &lo) == TDX_OK && lo == 0 &&
            tdx_src_same_text(m, tdx_src_call_arg(ar, 1), size))
            return nm;
    }
    return NULL;
}

/* The statement of the loop's body, before `before` (NULL: anywhere),
 * `target = value` for that target, whose value is a call of fn; NULL when
 * there is none. */
static const tdx_src_node *body_assign(const tdx_src_node *loop, const char *target, const char *fn,
                                       const tdx_src_node *before)
{
    for (const tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s && (!before || s->start < before->start);
         s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        const char *nm = NULL;
        const tdx_src_node *v = plain_assign(s, &nm);
        if (v && strcmp(nm, target) == 0 && tdx_src_is_dotted(tdx_src_call_func(v), fn))
            return s;
    }
    return NULL;
}

/* The statement `BI = tl.where(M > B, I, BI)` of the loop's body after
 * `after` (M < B for the arg-min; the comparison either way round), with
 * *mx = M, *best = B and *best_idx = BI. */
static const tdx_src_node *pick_stmt(const tdx_src_node *loop, const tdx_src_node *after, const char *idx,
                                     int is_min, const char **mx, const char **best, const char **best_idx)
{
    for (const tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, after); s;
         s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        const tdx_src_node *w = plain_assign(s, best_idx);
        if (!call_of(w, "tl.where", 3) || !tdx_src_is_name(tdx_src_call_arg(w, 1), idx) ||
            !tdx_src_is_name(tdx_src_call_arg(w, 2), *best_idx))
            continue;
        const tdx_src_node *c = tdx_src_call_arg(w, 0);
        if (c->kind != TDX_SRC_COMPARE || c->nkids != 2 || !tdx_src_is_name(c->kids[0], NULL) ||
            !tdx_src_is_name(c->kids[1], NULL))
            return NULL;
        /* M > B, B < M for the maximum; M < B, B > M for the minimum */
        int first_is_m = c->ops[0] == (is_min ? TDX_OP_LT : TDX_OP_GT);
        if (!first_is_m && c->ops[0] != (is_min ? TDX_OP_GT : TDX_OP_LT))
            return NULL;
        *mx = c->kids[first_is_m ? 0 : 1]->name;
        *best = c->kids[first_is_m ? 1 : 0]->name;
        return s;
    }
    return NULL;
}

/* Non-zero when the strings are all different. */
static int distinct(const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(v[i], v[j]) == 0)
                return 0;
    return 1;
}

/* The running arg-max (arg-min) whose index is op's, when it has the form
 * tdx_km_argdeferrable describes; fills *a. */
static int arg_running(const tdx_src_module *m, const tdx_km_kernel *k, const tdx_km_op *op, tdx_km_argdeferred *a)
{
    const tdx_src_node *call = op->call, *fn = tdx_src_call_func(call);
    int is_min = tdx_src_is_dotted(fn, "tl.argmin");
    if (!is_min && !tdx_src_is_dotted(fn, "tl.argmax"))
        return 0;
    /* I = tl.argmax(X, axis=0) + V, V the loop's variable */
    const tdx_src_node *plus = call->parent, *arg = plus ? plus->parent : NULL;
    const char *idx = NULL;
    if (!plus || plus->kind != TDX_SRC_BINOP || plus->op != TDX_OP_PLUS || plain_assign(arg, &idx) != plus ||
        arg->role != TDX_SRC_R_BODY)
        return 0;
    const tdx_src_node *l = tdx_src_kid(plus, TDX_SRC_R_LEFT), *r = tdx_src_kid(plus, TDX_SRC_R_RIGHT);
    const tdx_src_node *vn = l == call ? r : l, *loop = arg->parent;
    const tdx_src_node *tg = loop ? tdx_src_kid(loop, TDX_SRC_R_TARGET) : NULL;
    if (!loop || loop->kind != TDX_SRC_FOR || tdx_src_kid(loop, TDX_SRC_R_ORELSE) || enclosing_def(loop) != k->def ||
        !starts_line(m, loop) || tdx_km_loop_has_dot(k, loop) || !tdx_src_is_name(tg, NULL) ||
        !tdx_src_is_name(vn, tg->name) || tdx_src_count_bindings(loop, tg->name) != 1)
        return 0;
    /* X a 1-D tile of S lanes, S the loop's step */
    const tdx_src_node *x = tdx_src_call_arg(call, 0), *size = op->input.axis[0].size;
    if (!tdx_src_is_name(x, NULL) || op->input.rank != 1 || !reduces_all(m, call, 1) || !known_size(m, k, size) ||
        !steps_by(m, k, loop, size))
        return 0;
    const char *mx = NULL, *best = NULL, *best_idx = NULL;
    const tdx_src_node *pick = pick_stmt(loop, arg, idx, is_min, &mx, &best, &best_idx);
    const tdx_src_node *red = pick ? body_assign(loop, mx, is_min ? "tl.min" : "tl.max", pick) : NULL;
    const tdx_src_node *fold = pick ? body_assign(loop, best, is_min ? "tl.minimum" : "tl.maximum", NULL) : NULL;
    const tdx_src_node *rv = red ? tdx_src_kid(red, TDX_SRC_R_VALUE) : NULL;
    const tdx_src_node *fv = fold ? tdx_src_kid(fold, TDX_SRC_R_VALUE) : NULL;
    if (!rv || !fv || fold->start < pick->start || !tdx_src_is_name(tdx_src_call_arg(rv, 0), x->name) ||
        !reduces_all(m, rv, 1) || !call_of(fv, is_min ? "tl.minimum" : "tl.maximum", 2))
        return 0;
    const tdx_src_node *f0 = tdx_src_call_arg(fv, 0), *f1 = tdx_src_call_arg(fv, 1);
    if (!((tdx_src_is_name(f0, mx) && tdx_src_is_name(f1, best)) ||
          (tdx_src_is_name(f0, best) && tdx_src_is_name(f1, mx))))
        return 0;
    const char *names[] = {x->name, mx, idx, best, best_idx, tg->name};
    if (!distinct(names, sizeof names / sizeof names[0]))
        return 0;
    /* M and I are read only by the where and the fold; B and BI nowhere else
     * in the loop; B starts as an ordered float and is bound nowhere else */
    int found = 0;
    const tdx_src_node *init = tdx_km_binding_of(k->def, best, loop, &found);
    if (tdx_src_count_name(k->def, mx) != 3 || tdx_src_count_name(k->def, idx) != 2 ||
        tdx_src_count_name(loop, best) != 3 || tdx_src_count_name(loop, best_idx) != 2 ||
        tdx_src_count_bindings(k->def, best) != 2 || !found || !ordered_float(m, init))
        return 0;
    /* X is bound once in the kernel, by a statement of the loop's body
     * before both reductions: the pick sees the tile they reduced */
    const tdx_src_node *first = red->start < arg->start ? red : arg, *xv = NULL;
    for (const tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s && s->start < first->start && !xv;
         s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        const char *nm = NULL;
        const tdx_src_node *v = plain_assign(s, &nm);
        xv = v && strcmp(nm, x->name) == 0 ? v : NULL;
    }
    if (!xv || reshapes(xv) || tdx_src_count_bindings(k->def, x->name) != 1 || !own_lines(m, red) ||
        !own_lines(m, arg) || !own_lines(m, pick) || !own_lines(m, fold))
        return 0;
    *a = (tdx_km_argdeferred){is_min, op, loop, red, arg, pick, fold, x->name, best, best_idx, tg->name,
                              lane_index(m, k->def, loop, tg->name, size, pick), size};
    return 1;
}

size_t tdx_km_argdeferrable(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_argdeferred *out, size_t max)
{
    size_t n = 0;
    if (!f || !k || k->is_helper)
        return 0;
    for (size_t i = 0; i < k->ops.len && n < max; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind == TDX_KM_OP_REDUCE && op->call && arg_running(f->mod, k, op, &out[n]))
            n++;
    }
    return n;
}
