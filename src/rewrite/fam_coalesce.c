/* coalesce: a program that owns one index P of the contiguous memory axis
 * (one column of a row-major matrix, one row of a transpose's output) and
 * walks a block R of the other, strided axis touches one element per
 * 32-byte sector: the coalescer orders a layout by the contiguity AxisInfo
 * proves, and offsets `R * stride + P` are contiguous along no axis of the
 * 1-D block (lib/Dialect/TritonGPU/Transforms/Coalesce.cpp,
 * lib/Analysis/AxisInfo.cpp).
 *
 * The rewrite re-tiles: P becomes a block of C consecutive indices (the last,
 * contiguous axis of the tile, `pid * C + tl.arange(0, C)`) and R a column
 * (`R[:, None]`), so every access is a 2-D tile [BLOCK_R, C] whose threads
 * read consecutive addresses along P. Accesses contiguous along R already
 * (a transpose's load) keep that axis contiguous; Triton converts between the
 * two layouts through shared memory, the classic tiled transpose. Reductions
 * along R (axis=0) now give C results; scalar accumulators become blocks of C.
 * The grid shrinks by C and every access is masked with P's bound. */
#include <stdio.h>
#include <string.h>

#include "rewrite/fam_common.h"

enum { CMAXN = 64 };

typedef struct cnames {
    const char *v[CMAXN];
    size_t n;
} cnames;

/* Non-zero when name is in the set. */
static int in_names(const cnames *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return 1;
    return 0;
}

/* Non-zero when n reads a name of the set. */
static int mentions_any(const tdx_src_node *n, const cnames *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (fam_mentions(n, s->v[i]))
            return 1;
    return 0;
}

/* Close a set of names over the kernel's assignments: a name assigned from
 * a member becomes a member. */
static void close_over(fam_task *t, tdx_src_node *def, cnames *s)
{
    tdx_ptrvec as = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &as);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < as.len; i++) {
            tdx_src_node *tg = tdx_src_kid(as.items[i], TDX_SRC_R_TARGET);
            tdx_src_node *v = tdx_src_kid(as.items[i], TDX_SRC_R_VALUE);
            if (tg && tg->kind == TDX_SRC_NAME && !in_names(s, tg->name) && mentions_any(v, s) &&
                s->n < CMAXN) {
                s->v[s->n++] = tg->name;
                changed = 1;
            }
        }
    }
}

/* How many ASSIGN / AUGASSIGN statements of the kernel target name. */
static size_t assignments(fam_task *t, tdx_src_node *def, const char *name, tdx_src_kind kind)
{
    tdx_ptrvec as = {0};
    fam_collect(t, def, kind, &as);
    size_t n = 0;
    for (size_t i = 0; i < as.len; i++) {
        tdx_src_node *tg = tdx_src_kid(as.items[i], TDX_SRC_R_TARGET);
        n += tg && tg->kind == TDX_SRC_NAME && strcmp(tg->name, name) == 0;
    }
    return n;
}

/* Non-zero when some address in the kernel has a term `X * s` with X from
 * the R set and a term that is P itself: strided along R, unit along P. */
static int strided_access(fam_task *t, tdx_src_node *def, const cnames *r, const char *p)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        tdx_src_node *fn = tdx_src_call_func(c);
        if (!tdx_src_is_dotted(fn, "tl.load") && !tdx_src_is_dotted(fn, "tl.store"))
            continue;
        tdx_src_node *addr = tdx_src_call_arg(c, 0);
        int strided = 0, unit = 0;
        tdx_ptrvec bins = {0};
        fam_collect(t, addr, TDX_SRC_BINOP, &bins);
        for (size_t j = 0; j < bins.len; j++) {
            tdx_src_node *b = bins.items[j];
            tdx_src_node *l = tdx_src_kid(b, TDX_SRC_R_LEFT), *rt = tdx_src_kid(b, TDX_SRC_R_RIGHT);
            if (b->op == TDX_OP_STAR && (mentions_any(l, r) != mentions_any(rt, r)))
                strided = 1;
            if (b->op == TDX_OP_PLUS && ((l->kind == TDX_SRC_NAME && strcmp(l->name, p) == 0) ||
                                         (rt->kind == TDX_SRC_NAME && strcmp(rt->name, p) == 0)))
                unit = 1;
        }
        if (strided && unit)
            return 1;
    }
    return 0;
}

/* The axis argument of a reduction call, or -1 when absent / not constant. */
static long long axis_of(fam_task *t, const tdx_src_node *c)
{
    tdx_src_node *a = tdx_src_call_kwarg(c, "axis");
    if (!a)
        a = tdx_src_call_arg(c, 1);
    long long v;
    return a && tdx_src_int_value(t->m, a, &v) == TDX_OK ? v : -1;
}

static const char *const reductions[] = {"tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin",
                                         "tl.reduce", "tl.cumsum", "tl.cumprod", "tl.xor_sum", NULL};

typedef struct cplan {
    tdx_src_node *def, *L, *pstmt, *tup, *e0;
    const char *p;     /* the program's index */
    const char *bound; /* P's bound in the kernel's terms */
    cnames r;          /* the block along the strided axis, and names made from it */
    tdx_ptrvec rdefs;  /* ASSIGNs `R = ... tl.arange(0, B) ...` */
    tdx_ptrvec accs;   /* scalar accumulator initialisations (the value nodes) */
    tdx_src_node *rblock_lit; /* the launch literal of R's block size, or NULL */
    tdx_src_node *lastp;      /* the last parameter, when the bound is passed */
    tdx_ptrvec blocks;        /* first shape entries of accumulators along R */
} cplan;

/* Is the value a scalar literal start: a number, float("..."), or a sign on
 * either. Sets *is_float. */
static int scalar_start(fam_task *t, const tdx_src_node *e, int *is_float)
{
    if (e && e->kind == TDX_SRC_UNARYOP)
        e = tdx_src_kid(e, TDX_SRC_R_OPERAND);
    if (!e)
        return 0;
    if (e->kind == TDX_SRC_NUMBER) {
        size_t l;
        const char *s = tdx_src_text(t->m, e, &l);
        *is_float = memchr(s, '.', l) || memchr(s, 'e', l) || memchr(s, 'E', l);
        return 1;
    }
    *is_float = 1;
    return e->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(e), "float");
}

/* Whether the launch qualifies, and what to edit: P, R, the bound, the
 * accumulators. */
static int plan(fam_task *t, tdx_src_node *L, cplan *c)
{
    memset(c, 0, sizeof *c);
    c->L = L;
    c->def = fam_launched_kernel(t, L);
    tdx_src_node *g = fam_grid_of(t, L);
    if (!c->def || !g || g->kind != TDX_SRC_TUPLE || tdx_src_count(g, TDX_SRC_R_ELT) != 1)
        return 0;
    c->tup = g;
    c->e0 = tdx_src_kid(g, TDX_SRC_R_ELT);
    tdx_src_node *def = c->def;
    /* P: `p = tl.program_id(0)` in the body, the only program_id, never reassigned */
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    size_t pids = 0;
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *call = calls.items[i], *fn = tdx_src_call_func(call);
        if (tdx_src_is_dotted(fn, "tl.program_id")) {
            pids++;
            tdx_src_node *st = call->parent;
            if (st && st->kind == TDX_SRC_ASSIGN && st->parent == def &&
                tdx_src_count(st, TDX_SRC_R_TARGET) == 1 &&
                tdx_src_kid(st, TDX_SRC_R_TARGET)->kind == TDX_SRC_NAME) {
                c->pstmt = st;
                c->p = tdx_src_kid(st, TDX_SRC_R_TARGET)->name;
            }
        }
        if (tdx_src_is_dotted(fn, "tl.num_programs"))
            return 0;
        /* reductions must name the strided axis, which stays axis 0 */
        for (size_t k = 0; reductions[k]; k++)
            if (tdx_src_is_dotted(fn, reductions[k]) && axis_of(t, call) != 0)
                return 0;
    }
    if (pids != 1 || !c->pstmt || assignments(t, def, c->p, TDX_SRC_ASSIGN) != 1 ||
        assignments(t, def, c->p, TDX_SRC_AUGASSIGN) != 0)
        return 0;
    /* the kernel is 1-D: every tl.arange defines R, inside a loop */
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *call = calls.items[i];
        if (!tdx_src_is_dotted(tdx_src_call_func(call), "tl.arange"))
            continue;
        tdx_src_node *st = call->parent;
        while (st && st->kind != TDX_SRC_ASSIGN && st->kind != TDX_SRC_FUNCDEF &&
               (st->kind == TDX_SRC_BINOP || st->kind == TDX_SRC_CALL))
            st = st->parent;
        if (!st || st->kind != TDX_SRC_ASSIGN || !st->parent || st->parent->kind != TDX_SRC_FOR ||
            tdx_src_kid(st, TDX_SRC_R_TARGET)->kind != TDX_SRC_NAME)
            return 0;
        const char *rn = tdx_src_kid(st, TDX_SRC_R_TARGET)->name;
        if (assignments(t, def, rn, TDX_SRC_ASSIGN) != 1 || in_names(&c->r, rn) || c->r.n == CMAXN)
            return 0;
        c->r.v[c->r.n++] = rn;
        tdx_ptrvec_push(&t->arena, &c->rdefs, st);
        /* R's block size: a constexpr given as a literal at the launch */
        tdx_src_node *end = tdx_src_call_arg(call, 1);
        if (end && end->kind == TDX_SRC_NAME) {
            tdx_src_node *kv = tdx_src_call_kwarg(L, end->name);
            long long v;
            c->rblock_lit = kv ? fam_int_literal(t, kv, &v) : NULL;
        }
    }
    if (c->rdefs.len != 1)
        return 0;
    /* no 2-D indexing already, no control flow on the indices */
    tdx_ptrvec subs = {0};
    fam_collect(t, def, TDX_SRC_SUBSCRIPT, &subs);
    for (size_t i = 0; i < subs.len; i++)
        if (fam_calls_any(subs.items[i], (const char *const[]){"tl.arange", NULL}) ||
            tdx_src_kid(subs.items[i], TDX_SRC_R_INDEX)->kind != TDX_SRC_NAME)
            return 0;
    cnames pr = c->r;
    if (pr.n < CMAXN)
        pr.v[pr.n++] = c->p;
    close_over(t, def, &pr);
    close_over(t, def, &c->r);
    static const tdx_src_kind ctl[] = {TDX_SRC_IF, TDX_SRC_WHILE, TDX_SRC_FOR, TDX_SRC_IFEXP};
    for (size_t k = 0; k < sizeof ctl / sizeof ctl[0]; k++) {
        tdx_ptrvec v = {0};
        fam_collect(t, def, ctl[k], &v);
        for (size_t i = 0; i < v.len; i++) {
            tdx_src_node *x =
                tdx_src_kid(v.items[i], ctl[k] == TDX_SRC_FOR ? TDX_SRC_R_ITER : TDX_SRC_R_TEST);
            if (mentions_any(x, &pr))
                return 0;
        }
    }
    /* a helper may reduce or index in ways the new axis would break */
    if (fam_calls_helper(t, def, NULL) || !strided_access(t, def, &c->r, c->p))
        return 0;
    /* P's bound: the grid's size in the kernel's terms */
    tdx_buf b;
    tdx_buf_init(&b, 4096);
    int ok = fam_host_to_kernel(t, L, def, c->e0, &b);
    c->bound = ok ? tdx_arena_strdup(&t->arena, tdx_buf_str(&b)) : NULL;
    tdx_buf_free(&b);
    if (!c->bound) {
        /* not written in launch arguments: pass it as a new last parameter */
        for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
             p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
            c->lastp = p;
        if (!c->lastp || !c->lastp->name || tdx_src_kid(c->lastp, TDX_SRC_R_DEFAULT) ||
            (c->lastp->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR | TDX_SRC_F_SLASH)) ||
            fam_mentions(def, "_bound"))
            return 0;
        c->bound = "_bound";
    }
    /* block-shaped accumulators along R: tl.zeros / tl.full of shape (B,)
     * where B is R's block size gain the C axis */
    tdx_src_node *rsize = NULL;
    tdx_ptrvec rcalls = {0};
    fam_collect(t, c->rdefs.items[0], TDX_SRC_CALL, &rcalls);
    for (size_t i = 0; i < rcalls.len; i++)
        if (tdx_src_is_dotted(tdx_src_call_func(rcalls.items[i]), "tl.arange"))
            rsize = tdx_src_call_arg(rcalls.items[i], 1);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *call = calls.items[i], *fn = tdx_src_call_func(call);
        if (!tdx_src_is_dotted(fn, "tl.zeros") && !tdx_src_is_dotted(fn, "tl.full"))
            continue;
        tdx_src_node *shape = tdx_src_call_arg(call, 0);
        if (!shape)
            shape = tdx_src_call_kwarg(call, "shape");
        tdx_src_node *e0 = shape && (shape->kind == TDX_SRC_TUPLE || shape->kind == TDX_SRC_LIST)
                               ? tdx_src_kid(shape, TDX_SRC_R_ELT) : NULL;
        size_t al, bl;
        const char *at = e0 && rsize ? tdx_src_text(t->m, e0, &al) : NULL;
        const char *bt = rsize ? tdx_src_text(t->m, rsize, &bl) : NULL;
        if (!at || tdx_src_count(shape, TDX_SRC_R_ELT) != 1 || al != bl || memcmp(at, bt, al) != 0)
            return 0;
        tdx_ptrvec_push(&t->arena, &c->blocks, e0);
    }
    /* scalar accumulators: started before a loop that updates them */
    tdx_ptrvec as = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &as);
    for (size_t i = 0; i < as.len; i++) {
        tdx_src_node *a = as.items[i];
        tdx_src_node *tg = tdx_src_kid(a, TDX_SRC_R_TARGET), *v = tdx_src_kid(a, TDX_SRC_R_VALUE);
        int fl;
        if (a->parent != def || !tg || tg->kind != TDX_SRC_NAME || !scalar_start(t, v, &fl))
            continue;
        if (assignments(t, def, tg->name, TDX_SRC_ASSIGN) + assignments(t, def, tg->name, TDX_SRC_AUGASSIGN) >
            1)
            tdx_ptrvec_push(&t->arena, &c->accs, v);
    }
    return 1;
}

/* Join `P < bound` into the mask of every access whose address uses P. */
static void mask_p(fam_task *t, fam_edits *e, cplan *c, const cnames *pset)
{
    char *m = tdx_arena_printf(&t->arena, "%s < %s", c->p, c->bound);
    char *tail = tdx_arena_printf(&t->arena, ") & (%s < %s)", c->p, c->bound);
    tdx_ptrvec calls = {0};
    fam_collect(t, c->def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len && m && tail; i++) {
        tdx_src_node *call = calls.items[i], *fn = tdx_src_call_func(call);
        int st = tdx_src_is_dotted(fn, "tl.store");
        if (!st && !tdx_src_is_dotted(fn, "tl.load"))
            continue;
        if (!mentions_any(tdx_src_call_arg(call, 0), pset))
            continue;
        tdx_src_node *mk = tdx_src_call_arg(call, st ? 2 : 1);
        if (!mk)
            mk = tdx_src_call_kwarg(call, "mask");
        if (mk) {
            fam_edit(t, e, mk->start, mk->start, "(");
            fam_edit(t, e, mk->end, mk->end, tail);
        } else {
            fam_set_kwarg(t, e, call, "mask", m);
        }
    }
}

/* One candidate: tiles [rblock, cblock] (rblock 0: R keeps its block size). */
static tdx_status emit_tile(fam_task *t, cplan *c, int rblock, int cblock, tdx_rw_emit_fn emit, void *ud)
{
    fam_edits e = {0};
    char buf[256];
    tdx_src_node *pv = tdx_src_kid(c->pstmt, TDX_SRC_R_VALUE);
    size_t pl;
    const char *pt = tdx_src_text(t->m, pv, &pl);
    snprintf(buf, sizeof buf, "%.*s * %d + tl.arange(0, %d)", (int)pl, pt, cblock, cblock);
    fam_edit(t, &e, pv->start, pv->end, buf);
    tdx_src_node *rv = tdx_src_kid(c->rdefs.items[0], TDX_SRC_R_VALUE);
    fam_edit(t, &e, rv->start, rv->start, "(");
    fam_edit(t, &e, rv->end, rv->end, ")[:, None]");
    for (size_t i = 0; i < c->accs.len; i++) {
        tdx_src_node *v = c->accs.items[i];
        int fl = 1;
        scalar_start(t, v, &fl);
        size_t vl;
        const char *vt = tdx_src_text(t->m, v, &vl);
        snprintf(buf, sizeof buf, "tl.full((%d,), %.*s, dtype=tl.%s)", cblock, (int)vl, vt,
                 fl ? "float32" : "int32");
        fam_edit(t, &e, v->start, v->end, buf);
    }
    cnames pset = {{c->p}, 1};
    close_over(t, c->def, &pset);
    mask_p(t, &e, c, &pset);
    size_t el;
    const char *et = tdx_src_text(t->m, c->e0, &el);
    snprintf(buf, sizeof buf, "triton.cdiv(%.*s, %d)", (int)el, et, cblock);
    fam_edit(t, &e, c->e0->start, c->e0->end, buf);
    for (size_t i = 0; i < c->blocks.len; i++) {
        tdx_src_node *b0 = c->blocks.items[i];
        snprintf(buf, sizeof buf, ", %d", cblock);
        fam_edit(t, &e, b0->end, b0->end, buf);
    }
    if (!strcmp(c->bound, "_bound")) {
        fam_edit(t, &e, c->lastp->end, c->lastp->end, ", _bound");
        char *v0 = tdx_arena_strndup(&t->arena, et, el);
        if (!v0)
            return TDX_ERR_NOMEM;
        fam_set_kwarg(t, &e, c->L, "_bound", v0);
    }
    if (c->rblock_lit && rblock) {
        snprintf(buf, sizeof buf, "%d", rblock);
        fam_edit(t, &e, c->rblock_lit->start, c->rblock_lit->end, buf);
    }
    char sum[200];
    snprintf(sum, sizeof sum, "%s: %s becomes a block of %d contiguous indices, tiles [%d, %d] read along it",
             c->def->name ? c->def->name : "kernel", c->p, cblock, rblock, cblock);
    return fam_emit(t, &e, emit, ud, "coalesce", sum);
}

/* The family: each qualifying launch, a few tile shapes of 4096 elements. */
tdx_status fam_coalesce(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    /* tiles of 4096 elements: 32 per thread at 4 warps, no spills */
    static const int shapes[][2] = {{64, 64}, {32, 128}, {128, 32}};
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < t->launches.len && !st; i++) {
        cplan c;
        if (!plan(t, t->launches.items[i], &c))
            continue;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0] && !st; k++) {
            if (!c.rblock_lit && k > 0)
                break; /* R's block is fixed: one narrow tile */
            st =
                emit_tile(t, &c, c.rblock_lit ? shapes[k][0] : 0, c.rblock_lit ? shapes[k][1] : 16, emit, ud);
        }
    }
    return st;
}
