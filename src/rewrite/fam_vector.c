/* vectorize-loop: a kernel loop that loads one element per iteration becomes
 * a loop over blocks of tl.arange offsets. A tt.load of a scalar pointer is
 * lowered to one predicated ld.global per thread, every thread of the
 * program loading the same element (third_party/nvidia/lib/
 * TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp); over a block of offsets the
 * threads load distinct, contiguous elements and the coalescer can vectorise
 * them (lib/Dialect/TritonGPU/Transforms/Coalesce.cpp).
 *
 * Only loops whose data flow is plain are changed: each statement either
 * defines a name used only later in the same iteration, accumulates a sum,
 * max or min into a scalar started before the loop (it becomes tl.sum /
 * tl.max / tl.min of the block, masked lanes given the neutral value), or
 * stores at an address that depends on the loop index. Anything else (a
 * value carried from one iteration to the next, control flow, block
 * operations already in the body) leaves the loop alone.
 *
 * A loop whose body also reads 1-D tiles made before it (a column sum that
 * walks one row of BLOCK_N columns per iteration) is blocked along a new
 * leading axis instead: the index becomes a column of R rows, `[:, None]`,
 * every tile it meets broadcasts to R x BLOCK_N, and the accumulators add
 * the block reduced over axis 0. One iteration then has R rows of loads in
 * flight instead of one. That is done only in kernels whose every tile is
 * 1-D (no subscripts, no reshapes, no dot, 1-element shapes), so that the
 * broadcast is the whole story. */
#include <stdio.h>
#include <string.h>

#include "rewrite/fam_common.h"

typedef struct mention_ud {
    const char *name;
    int found;
} mention_ud;

/* Walk visitor of fam_mentions: stop at the first NAME with the name. */
static int mention_visit(tdx_src_node *n, void *ud)
{
    mention_ud *m = ud;
    if (n->kind == TDX_SRC_NAME && n->name && strcmp(n->name, m->name) == 0) {
        m->found = 1;
        return -1;
    }
    return 0;
}

/* Non-zero when a NAME node named name occurs under n. */
int fam_mentions(const tdx_src_node *n, const char *name)
{
    if (!n || !name)
        return 0;
    mention_ud m = {name, 0};
    tdx_src_walk((tdx_src_node *)n, mention_visit, &m);
    return m.found;
}

int fam_io_call(tdx_src_node *c, tdx_src_node **ptr)
{
    *ptr = NULL;
    tdx_src_node *fn = c && c->kind == TDX_SRC_CALL ? tdx_src_call_func(c) : NULL;
    int kind = !fn                               ? FAM_IO_NONE
               : tdx_src_is_dotted(fn, "tl.load")  ? FAM_IO_LOAD
               : tdx_src_is_dotted(fn, "tl.store") ? FAM_IO_STORE
                                                   : FAM_IO_NONE;
    if (kind != FAM_IO_NONE) {
        *ptr = tdx_src_call_arg(c, 0);
        if (!*ptr)
            *ptr = tdx_src_call_kwarg(c, "pointer");
    }
    return kind;
}

typedef struct callpfx_ud {
    const char *const *names;
    int found;
} callpfx_ud;

/* Walk visitor of fam_calls_any: stop at the first call of a listed name. */
static int callpfx_visit(tdx_src_node *n, void *ud)
{
    callpfx_ud *c = ud;
    if (n->kind != TDX_SRC_CALL)
        return 0;
    tdx_src_node *fn = tdx_src_call_func(n);
    for (size_t i = 0; c->names[i]; i++)
        if (tdx_src_is_dotted(fn, c->names[i])) {
            c->found = 1;
            return -1;
        }
    return 0;
}

/* Non-zero when n contains a call of one of the dotted names. */
int fam_calls_any(const tdx_src_node *n, const char *const *names)
{
    callpfx_ud c = {names, 0};
    tdx_src_walk((tdx_src_node *)n, callpfx_visit, &c);
    return c.found;
}

/* The first @triton.jit function of the module that a call under n calls
 * by name (a helper whose body the kernel inlines), or NULL. With
 * what != NULL, only a helper whose body calls one of those names. */
tdx_src_node *fam_calls_helper(fam_task *t, tdx_src_node *n, const char *const *what)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, n, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *fn = tdx_src_call_func(calls.items[i]);
        if (!fn || fn->kind != TDX_SRC_NAME)
            continue;
        for (size_t k = 0; k < t->kernels.len; k++) {
            tdx_src_node *d = t->kernels.items[k];
            if (d->name && strcmp(d->name, fn->name) == 0 && (!what || fam_calls_any(d, what)))
                return d;
        }
    }
    return NULL;
}

/* The number of NAME nodes named name under n, outside the subtree skip. */
static size_t count_reads(const tdx_src_node *n, const char *name, const tdx_src_node *skip)
{
    if (!n || n == skip)
        return 0;
    size_t c = n->kind == TDX_SRC_NAME && n->name && strcmp(n->name, name) == 0;
    for (uint32_t i = 0; i < n->nkids; i++)
        c += count_reads(n->kids[i], name, skip);
    return c;
}

/* Block operations and effects that make a loop body more than per-element
 * scalar code: vectorising it would change its shapes or its meaning. */
static const char *const not_scalar[] = {
    "tl.arange", "tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.reduce",
    "tl.cumsum", "tl.cumprod", "tl.associative_scan", "tl.dot", "tl.zeros", "tl.full",
    "tl.zeros_like", "tl.full_like", "tl.atomic_add", "tl.atomic_max", "tl.atomic_min",
    "tl.atomic_cas", "tl.atomic_xchg", "tl.atomic_and", "tl.atomic_or", "tl.atomic_xor",
    "tl.make_block_ptr", "tl.advance", "tl.reshape", "tl.view", "tl.trans", "tl.permute",
    "tl.broadcast_to", "tl.expand_dims", "tl.split", "tl.join", "tl.num_programs",
    "tl.static_range", "tl.device_print", "tl.static_print", "print", NULL};

/* What a statement of the loop body is. */
typedef enum vstmt_kind { VS_DEF, VS_SUM, VS_MAX, VS_MIN, VS_STORE } vstmt_kind;

typedef struct vstmt {
    vstmt_kind kind;
    tdx_src_node *st;
    const char *name; /* defined or accumulated name */
    tdx_src_node *val; /* the accumulated expression */
} vstmt;

enum { VMAX = 48 };

typedef struct vloop {
    tdx_src_node *f, *def, *it;
    const char *ivar;
    tdx_src_node *lo, *hi, *step;
    int rows; /* the body reads 1-D tiles made before the loop: block along a new leading axis */
    vstmt s[VMAX];
    size_t n;
    const char *derived[VMAX + 1]; /* names that depend on the index */
    size_t nd;
} vloop;

/* Non-zero when e depends on the loop index (directly or through a body local). */
static int is_derived(const vloop *v, const tdx_src_node *e)
{
    for (size_t i = 0; i < v->nd; i++)
        if (fam_mentions(e, v->derived[i]))
            return 1;
    return 0;
}

/* A scalar starting value of an accumulator: a number, a signed number,
 * float("...") or its negation. */
static int scalar_init(const tdx_src_node *e)
{
    if (!e)
        return 0;
    if (e->kind == TDX_SRC_UNARYOP)
        e = tdx_src_kid(e, TDX_SRC_R_OPERAND);
    if (!e)
        return 0;
    if (e->kind == TDX_SRC_NUMBER)
        return 1;
    return e->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(e), "float");
}

/* A block starting value of an accumulator: tl.zeros / tl.full (1-D in a
 * kernel that one_d_kernel accepted). */
static int block_init(const tdx_src_node *e)
{
    return e && e->kind == TDX_SRC_CALL &&
           (tdx_src_is_dotted(tdx_src_call_func(e), "tl.zeros") ||
            tdx_src_is_dotted(tdx_src_call_func(e), "tl.full"));
}

/* Calls and methods that make or reshape tiles of more than one axis. */
static const char *const multi_axis[] = {
    "tl.dot", "tl.reshape", "tl.view", "tl.trans", "tl.permute", "tl.broadcast_to", "tl.expand_dims",
    "tl.join", "tl.split", "tl.interleave", "tl.make_block_ptr", "tl.advance", "tl.associative_scan",
    "tl.cumsum", "tl.cumprod", "tl.reduce", "tl.sort", "tl.histogram", "tl.gather", "tl.dot_scaled",
    NULL};
static const char *const multi_axis_methods[] = {"reshape", "view", "trans", "permute", "expand_dims",
                                                 "broadcast_to", "T", NULL};

/* Non-zero when every tile of kernel def is 1-D: no subscript, no call that
 * makes or reshapes a tile of more axes, tl.zeros / tl.full of one-element
 * shapes, no helper. */
static int one_d_kernel(fam_task *t, tdx_src_node *def)
{
    tdx_ptrvec subs = {0}, calls = {0}, attrs = {0};
    fam_collect(t, def, TDX_SRC_SUBSCRIPT, &subs);
    if (subs.len || fam_calls_any(def, multi_axis) || fam_calls_helper(t, def, NULL))
        return 0;
    fam_collect(t, def, TDX_SRC_ATTRIBUTE, &attrs);
    for (size_t i = 0; i < attrs.len; i++) {
        const tdx_src_node *a = attrs.items[i];
        for (size_t m = 0; a->name && multi_axis_methods[m]; m++)
            if (strcmp(a->name, multi_axis_methods[m]) == 0)
                return 0;
    }
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i], *fn = tdx_src_call_func(c);
        if (!tdx_src_is_dotted(fn, "tl.zeros") && !tdx_src_is_dotted(fn, "tl.full"))
            continue;
        tdx_src_node *shape = tdx_src_call_arg(c, 0);
        if (!shape)
            shape = tdx_src_call_kwarg(c, "shape");
        if (!shape || ((shape->kind == TDX_SRC_TUPLE || shape->kind == TDX_SRC_LIST) &&
                       tdx_src_count(shape, TDX_SRC_R_ELT) != 1))
            return 0;
    }
    return 1;
}

/* A loop step the blocked loop can scale: a positive integer literal, or
 * tl.num_programs(...) directly or through a name bound once to it. */
static int step_ok(fam_task *t, const vloop *v, tdx_src_node *step)
{
    long long k;
    if (step->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(t->m, step, &k) == TDX_OK && k > 0;
    if (step->kind == TDX_SRC_CALL)
        return tdx_src_is_dotted(tdx_src_call_func(step), "tl.num_programs");
    if (step->kind != TDX_SRC_NAME || !step->name)
        return 0;
    tdx_ptrvec as = {0}, aug = {0};
    fam_collect(t, v->def, TDX_SRC_ASSIGN, &as);
    fam_collect(t, v->def, TDX_SRC_AUGASSIGN, &aug);
    int bound = 0;
    for (size_t i = 0; i < aug.len; i++) {
        tdx_src_node *tg = tdx_src_kid(aug.items[i], TDX_SRC_R_TARGET);
        if (tg && tg->kind == TDX_SRC_NAME && strcmp(tg->name, step->name) == 0)
            return 0;
    }
    for (size_t i = 0; i < as.len; i++) {
        tdx_src_node *a = as.items[i];
        for (tdx_src_node *tg = tdx_src_next(a, TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(a, TDX_SRC_R_TARGET, tg)) {
            if (tg->kind != TDX_SRC_NAME || strcmp(tg->name, step->name) != 0)
                continue;
            tdx_src_node *val = tdx_src_kid(a, TDX_SRC_R_VALUE);
            if (bound || tdx_src_count(a, TDX_SRC_R_TARGET) != 1 || !val || val->kind != TDX_SRC_CALL ||
                !tdx_src_is_dotted(tdx_src_call_func(val), "tl.num_programs"))
                return 0;
            bound = 1;
        }
    }
    /* a parameter of that name would be rebound by nothing above */
    for (tdx_src_node *p = tdx_src_next(v->def, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(v->def, TDX_SRC_R_PARAM, p))
        if (p->name && strcmp(p->name, step->name) == 0)
            return 0;
    return bound;
}

/* The accumulator's last assignment before the loop, in the kernel. */
static tdx_src_node *init_before(fam_task *t, const vloop *v, const char *name)
{
    tdx_ptrvec as = {0};
    fam_collect(t, v->def, TDX_SRC_ASSIGN, &as);
    tdx_src_node *last = NULL;
    for (size_t i = 0; i < as.len; i++) {
        tdx_src_node *a = as.items[i];
        tdx_src_node *tg = tdx_src_kid(a, TDX_SRC_R_TARGET);
        if (a->start < v->f->start && tg && tg->kind == TDX_SRC_NAME && strcmp(tg->name, name) == 0)
            last = a;
    }
    return last ? tdx_src_kid(last, TDX_SRC_R_VALUE) : NULL;
}

/* Classify one body statement; 0 when the loop cannot be vectorised. */
static int classify(vloop *v, tdx_src_node *st, vstmt *out)
{
    out->st = st;
    out->val = NULL;
    if (st->kind == TDX_SRC_EXPR_STMT) {
        tdx_src_node *c = tdx_src_kid(st, TDX_SRC_R_VALUE);
        if (!c || c->kind != TDX_SRC_CALL || !tdx_src_is_dotted(tdx_src_call_func(c), "tl.store"))
            return 0;
        /* a store at a loop-invariant address would keep only the last value */
        if (!is_derived(v, tdx_src_call_arg(c, 0)))
            return 0;
        out->kind = VS_STORE;
        out->name = NULL;
        return 1;
    }
    tdx_src_node *tg = tdx_src_kid(st, TDX_SRC_R_TARGET);
    tdx_src_node *val = tdx_src_kid(st, TDX_SRC_R_VALUE);
    if (!tg || tg->kind != TDX_SRC_NAME || !val)
        return 0;
    out->name = tg->name;
    if (st->kind == TDX_SRC_AUGASSIGN) {
        if (st->op != TDX_OP_PLUS)
            return 0;
        out->kind = VS_SUM;
        out->val = val;
        return 1;
    }
    if (st->kind != TDX_SRC_ASSIGN || tdx_src_count(st, TDX_SRC_R_TARGET) != 1)
        return 0;
    /* acc = acc + E, acc = tl.maximum(acc, E), acc = tl.minimum(E, acc) */
    tdx_src_node *a = NULL, *b = NULL;
    vstmt_kind k = VS_DEF;
    if (val->kind == TDX_SRC_BINOP && val->op == TDX_OP_PLUS) {
        a = tdx_src_kid(val, TDX_SRC_R_LEFT);
        b = tdx_src_kid(val, TDX_SRC_R_RIGHT);
        k = VS_SUM;
    } else if (val->kind == TDX_SRC_CALL && tdx_src_call_nargs(val) == 2 &&
               !tdx_src_kid(val, TDX_SRC_R_KEYWORD)) {
        tdx_src_node *fn = tdx_src_call_func(val);
        if (tdx_src_is_dotted(fn, "tl.maximum"))
            k = VS_MAX;
        else if (tdx_src_is_dotted(fn, "tl.minimum"))
            k = VS_MIN;
        a = tdx_src_call_arg(val, 0);
        b = tdx_src_call_arg(val, 1);
    }
    if (k != VS_DEF && a && b) {
        int an = a->kind == TDX_SRC_NAME && strcmp(a->name, tg->name) == 0;
        int bn = b->kind == TDX_SRC_NAME && strcmp(b->name, tg->name) == 0;
        if (an != bn) {
            out->kind = k;
            out->val = an ? b : a;
            return 1;
        }
    }
    out->kind = VS_DEF;
    return 1;
}

/* Non-zero when the loop body reads a name that holds a block outside the
 * loop (made from tl.arange, tl.zeros, tl.full ... or from such a name):
 * adding an axis of offsets would not line up with it. */
static int reads_outer_block(fam_task *t, const vloop *v)
{
    static const char *const makers[] = {"tl.arange", "tl.zeros", "tl.full", "tl.zeros_like",
                                         "tl.full_like", "tl.make_block_ptr", NULL};
    tdx_ptrvec as = {0}, aug = {0};
    fam_collect(t, v->def, TDX_SRC_ASSIGN, &as);
    fam_collect(t, v->def, TDX_SRC_AUGASSIGN, &aug);
    for (size_t i = 0; i < aug.len; i++)
        tdx_ptrvec_push(&t->arena, &as, aug.items[i]);
    const char *blocks[128];
    size_t nb = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < as.len; i++) {
            tdx_src_node *a = as.items[i];
            if (a->start >= v->f->start && a->end <= v->f->end)
                continue;
            tdx_src_node *tg = tdx_src_kid(a, TDX_SRC_R_TARGET), *val = tdx_src_kid(a, TDX_SRC_R_VALUE);
            if (!tg || tg->kind != TDX_SRC_NAME || !val)
                continue;
            int known = 0, block = fam_calls_any(val, makers);
            for (size_t b = 0; b < nb; b++) {
                known |= strcmp(blocks[b], tg->name) == 0;
                block |= fam_mentions(val, blocks[b]);
            }
            if (block && !known && nb < 128) {
                blocks[nb++] = tg->name;
                changed = 1;
            }
        }
    }
    for (size_t b = 0; b < nb; b++)
        for (tdx_src_node *st = tdx_src_kid(v->f, TDX_SRC_R_BODY); st;
             st = tdx_src_next(v->f, TDX_SRC_R_BODY, st))
            if (fam_mentions(st, blocks[b]))
                return 1;
    return 0;
}

/* Check the loop's data flow; fills v. */
static int analyse(fam_task *t, vloop *v)
{
    tdx_src_node *f = v->f;
    tdx_src_node *tg = tdx_src_kid(f, TDX_SRC_R_TARGET);
    v->it = tdx_src_kid(f, TDX_SRC_R_ITER);
    if (!tg || tg->kind != TDX_SRC_NAME || !v->it || v->it->kind != TDX_SRC_CALL ||
        tdx_src_kid(f, TDX_SRC_R_ORELSE) || tdx_src_kid(v->it, TDX_SRC_R_KEYWORD))
        return 0;
    tdx_src_node *fn = tdx_src_call_func(v->it);
    if (!tdx_src_is_dotted(fn, "range") && !tdx_src_is_dotted(fn, "tl.range"))
        return 0;
    size_t na = tdx_src_call_nargs(v->it);
    if (na < 1 || na > 3)
        return 0;
    v->lo = na >= 2 ? tdx_src_call_arg(v->it, 0) : NULL;
    v->hi = tdx_src_call_arg(v->it, na == 1 ? 0 : 1);
    v->step = na == 3 ? tdx_src_call_arg(v->it, 2) : NULL;
    if (v->hi->kind == TDX_SRC_STARRED || (v->lo && v->lo->kind == TDX_SRC_STARRED) ||
        (v->step && !step_ok(t, v, v->step)))
        return 0;
    v->ivar = tg->name;
    tdx_src_node *first = tdx_src_kid(f, TDX_SRC_R_BODY);
    if (!first || first->line == f->line)
        return 0; /* body on the header's line */
    if (fam_mentions(v->hi, v->ivar) || (v->lo && fam_mentions(v->lo, v->ivar)) ||
        (v->step && fam_mentions(v->step, v->ivar)))
        return 0;
    /* the body: scalar statements only */
    v->n = 0;
    v->nd = 0;
    v->derived[v->nd++] = v->ivar;
    for (tdx_src_node *st = first; st; st = tdx_src_next(f, TDX_SRC_R_BODY, st)) {
        if (v->n == VMAX || fam_calls_any(st, not_scalar) || !classify(v, st, &v->s[v->n]))
            return 0;
        vstmt *s = &v->s[v->n];
        if (s->kind == VS_DEF && is_derived(v, tdx_src_kid(st, TDX_SRC_R_VALUE)))
            v->derived[v->nd++] = s->name;
        v->n++;
    }
    int loads = 0;
    tdx_ptrvec calls = {0};
    fam_collect(t, f, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++)
        if (tdx_src_is_dotted(tdx_src_call_func(calls.items[i]), "tl.load") &&
            is_derived(v, tdx_src_call_arg(calls.items[i], 0)))
            loads = 1;
    if (!loads || fam_calls_helper(t, f, NULL))
        return 0; /* a helper's body is not known to be per-element */
    v->rows = reads_outer_block(t, v);
    if (v->rows && !one_d_kernel(t, v->def))
        return 0;
    /* the index and the names defined in the body live in one iteration:
     * never read outside the loop, never read before their definition */
    if (count_reads(v->def, v->ivar, f) != 0)
        return 0;
    for (size_t i = 0; i < v->n; i++) {
        vstmt *s = &v->s[i];
        if (s->kind == VS_STORE)
            continue;
        if (s->kind == VS_DEF) {
            if (count_reads(v->def, s->name, f) != 0 || strcmp(s->name, v->ivar) == 0)
                return 0;
            for (size_t j = 0; j <= i; j++) {
                tdx_src_node *use = v->s[j].kind == VS_STORE ? v->s[j].st
                                                               : tdx_src_kid(v->s[j].st, TDX_SRC_R_VALUE);
                if (fam_mentions(use, s->name))
                    return 0; /* read before (or while) it is defined: carried */
            }
            for (size_t j = i + 1; j < v->n; j++)
                if (v->s[j].kind != VS_STORE && strcmp(v->s[j].name, s->name) == 0)
                    return 0; /* defined twice */
            continue;
        }
        /* an accumulator: read nowhere else in the body, started as a scalar */
        size_t reads = count_reads(f, s->name, NULL);
        size_t own = count_reads(s->st, s->name, NULL);
        tdx_src_node *init = init_before(t, v, s->name);
        if (reads != own || fam_mentions(s->val, s->name) ||
            !(scalar_init(init) || (v->rows && block_init(init))))
            return 0;
        for (size_t j = 0; j < v->n; j++)
            if (j != i && v->s[j].kind != VS_STORE && strcmp(v->s[j].name, s->name) == 0)
                return 0;
    }
    return 1;
}

/* The mask argument of a tl.load (second positional) or tl.store (third
 * positional), or the keyword. */
static tdx_src_node *mask_of(const tdx_src_node *call, int is_store)
{
    tdx_src_node *m = tdx_src_call_arg(call, is_store ? 2 : 1);
    return m ? m : tdx_src_call_kwarg(call, "mask");
}

/* Mask every load and store whose address depends on the index with the
 * block's bound, joining any mask it had. */
static void mask_accesses(fam_task *t, fam_edits *e, vloop *v)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, v->f, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        tdx_src_node *fn = tdx_src_call_func(c);
        if (!tdx_src_is_dotted(fn, "tl.load") && !tdx_src_is_dotted(fn, "tl.store"))
            continue;
        if (!is_derived(v, tdx_src_call_arg(c, 0)))
            continue;
        tdx_src_node *m = mask_of(c, tdx_src_is_dotted(fn, "tl.store"));
        if (m) {
            fam_edit(t, e, m->start, m->start, "_vm & (");
            fam_edit(t, e, m->end, m->end, ")");
        } else {
            fam_set_kwarg(t, e, c, "mask", "_vm");
        }
    }
}

/* One candidate: the loop over blocks of vb indices. */
static tdx_status rewrite_loop(fam_task *t, vloop *v, int vb, tdx_rw_emit_fn emit, void *ud)
{
    fam_edits e = {0};
    tdx_src_node *f = v->f;
    tdx_src_node *tg = tdx_src_kid(f, TDX_SRC_R_TARGET);
    size_t ll = 0, hl;
    const char *lo = v->lo ? tdx_src_text(t->m, v->lo, &ll) : "0";
    if (!v->lo)
        ll = 1;
    const char *hi = tdx_src_text(t->m, v->hi, &hl);
    const char *rng = tdx_src_is_dotted(tdx_src_call_func(v->it), "tl.range") ? "tl.range" : "range";
    tdx_src_node *first = tdx_src_kid(f, TDX_SRC_R_BODY);
    int ind = first->col - 1;
    size_t sl = 0;
    const char *stp = v->step ? tdx_src_text(t->m, v->step, &sl) : "";
    char *iter = v->step ? tdx_arena_printf(&t->arena, "%s(%.*s, %.*s, %d * (%.*s))", rng, (int)ll, lo,
                                            (int)hl, hi, vb, (int)sl, stp)
                         : tdx_arena_printf(&t->arena, "%s(%.*s, %.*s, %d)", rng, (int)ll, lo, (int)hl, hi, vb);
    char *idx = v->step ? tdx_arena_printf(&t->arena, "_vs + tl.arange(0, %d) * (%.*s)", vb, (int)sl, stp)
                        : tdx_arena_printf(&t->arena, "_vs + tl.arange(0, %d)", vb);
    if (!iter || !idx)
        return TDX_ERR_NOMEM;
    char *head = tdx_arena_printf(&t->arena, "%s = %s%s%s\n%*s_vm = %s < (%.*s)\n%*s", v->ivar,
                                  v->rows ? "(" : "", idx, v->rows ? ")[:, None]" : "", ind, "",
                                  v->ivar, (int)hl, hi, ind, "");
    if (!iter || !head)
        return TDX_ERR_NOMEM;
    fam_edit(t, &e, tg->start, tg->end, "_vs");
    fam_edit(t, &e, v->it->start, v->it->end, iter);
    fam_edit(t, &e, first->start, first->start, head);
    mask_accesses(t, &e, v);
    /* accumulators: reduce the block, masked lanes neutral */
    for (size_t i = 0; i < v->n; i++) {
        vstmt *s = &v->s[i];
        if (s->kind == VS_DEF || s->kind == VS_STORE)
            continue;
        const char *red = s->kind == VS_SUM ? "tl.sum" : s->kind == VS_MAX ? "tl.max" : "tl.min";
        const char *neutral = s->kind == VS_SUM   ? "0"
                              : s->kind == VS_MAX ? "-float(\"inf\")"
                                                  : "float(\"inf\")";
        char *pre = tdx_arena_printf(&t->arena, "%s(tl.where(_vm, ", red);
        char *post = tdx_arena_printf(&t->arena, ", %s), axis=0)", neutral);
        if (!pre || !post)
            return TDX_ERR_NOMEM;
        fam_edit(t, &e, s->val->start, s->val->start, pre);
        fam_edit(t, &e, s->val->end, s->val->end, post);
    }
    const char *kn = v->def->name ? v->def->name : "kernel";
    char sum[200];
    if (v->rows)
        snprintf(sum, sizeof sum, "%s: the loop over %s (line %d) takes %d of its steps at once, as the "
                 "leading axis of a 2-D block", kn, v->ivar, f->line, vb);
    else
        snprintf(sum, sizeof sum, "%s: the scalar loop over %s (line %d) runs on blocks of %d offsets",
                 kn, v->ivar, f->line, vb);
    return fam_emit(t, &e, emit, ud, "vectorize-loop", sum);
}

/* The family: every qualifying loop of every kernel, two block widths each. */
tdx_status fam_vectorize_loop(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    static const int blocks[] = {256, 1024};
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        tdx_src_node *def = t->kernels.items[k];
        if (fam_mentions(def, "_vs") || fam_mentions(def, "_vm"))
            continue;
        tdx_ptrvec loops = {0};
        fam_collect(t, def, TDX_SRC_FOR, &loops);
        for (size_t i = 0; i < loops.len && !st; i++) {
            vloop v;
            memset(&v, 0, sizeof v);
            v.f = loops.items[i];
            v.def = def;
            if (!analyse(t, &v))
                continue;
            if (v.rows) {
                long long w = fam_widest_arange(t, def);
                int r1 = w > 0 ? fam_rows_for(w, 4096) : 32, r2 = w > 0 ? fam_rows_for(w, 1024) : 8;
                /* a loop of a known short trip count takes all of it at once */
                long long lo = 0, hi, stp = 1;
                int hi_known = fam_size_value(t, def, v.hi, &hi) ||
                               (v.hi->kind == TDX_SRC_NAME && fam_bench_param(t, def, v.hi->name, &hi));
                if (hi_known && (!v.lo || fam_size_value(t, def, v.lo, &lo)) &&
                    (!v.step || fam_size_value(t, def, v.step, &stp)) && stp > 0) {
                    long long trip = hi > lo ? (hi - lo + stp - 1) / stp : 0;
                    if (trip < 2)
                        continue;
                    int p2 = 2;
                    while (p2 < trip && p2 < 256)
                        p2 *= 2;
                    r1 = r1 < p2 ? r1 : p2;
                    r2 = r2 < p2 ? r2 : p2;
                }
                st = rewrite_loop(t, &v, r1, emit, ud);
                if (!st && r2 != r1)
                    st = rewrite_loop(t, &v, r2, emit, ud);
                continue;
            }
            for (size_t b = 0; b < sizeof blocks / sizeof blocks[0] && !st; b++)
                st = rewrite_loop(t, &v, blocks[b], emit, ud);
        }
    }
    return st;
}
