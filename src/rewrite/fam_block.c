/* block-outputs: R programs along one axis of a multi-axis grid in one.
 *
 * A direct convolution written one program per (pixel block, output
 * channel, image) loads the same input tile in every one of its C_out
 * programs along the channel axis and multiplies it by one scalar weight:
 * a load per multiply-add, and the input read C_out times. Giving each
 * program R output channels loads the tile once for R of them:
 *
 *     co = tl.program_id(1)
 * becomes
 *     co = tl.program_id(1) * _TDX_R + tl.arange(0, _TDX_R)[:, None]
 *     _tdx_live = co < _tdx_np
 *
 * so everything computed from co is an [R, 1] column: the weight loads
 * become R weights, the 1-D tiles that do not depend on co broadcast
 * against it, accumulators created as tl.zeros((BLOCK,)) gain the leading
 * axis (tl.zeros((_TDX_R, BLOCK))), and every load and store computed from
 * co is masked by _tdx_live (the programs past the old grid's end). The
 * launch runs cdiv(G, R) programs along that axis with _tdx_np = G.
 *
 * Only kernels where that broadcast is the whole story are changed: 1-D
 * tiles only (no subscripts), element-wise tl calls, loops over range(...),
 * no reduction, scan, dot, atomic or helper call; the pid bound once at the
 * top of the body; a name computed from it inside a loop is either local to
 * that loop or an accumulator created by tl.zeros / tl.full with a tuple
 * shape; at least one load inside a loop does not depend on it (the tile the
 * R outputs share); every launch on a grid tuple that has the axis. */
#include <stdio.h>
#include <string.h>

#include "rewrite/fam_common.h"

/* Calls a blocked kernel may make: element-wise on broadcast operands. */
static const char *const allowed[] = {
    "tl.program_id", "tl.arange", "tl.load", "tl.store", "tl.where", "tl.maximum", "tl.minimum",
    "tl.exp", "tl.exp2", "tl.log", "tl.log2", "tl.sqrt", "tl.rsqrt", "tl.abs", "tl.sigmoid", "tl.cos",
    "tl.sin", "tl.fma", "tl.erf", "tl.floor", "tl.ceil", "tl.fdiv", "tl.div_rn", "tl.clamp", "tl.full",
    "tl.zeros", "tl.cdiv", "tl.multiple_of", "tl.max_contiguous", "tl.math.exp", "tl.math.exp2",
    "tl.math.log", "tl.math.sqrt", "tl.math.rsqrt", "tl.math.tanh", "tl.math.erf", "float", "range",
    "tl.range", "tl.static_range", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

/* The FOR loop of def that holds n, innermost, or NULL. */
static const tdx_src_node *loop_of(const tdx_src_node *n, const tdx_src_node *def)
{
    for (const tdx_src_node *p = n->parent; p && p != def; p = p->parent)
        if (p->kind == TDX_SRC_FOR || p->kind == TDX_SRC_WHILE)
            return p;
    return NULL;
}

enum { MAXN = 64 };

typedef struct bplan {
    const tdx_src_node *pid_stmt; /* NAME = tl.program_id(A) */
    long long axis;
    const char *names[MAXN];      /* computed from pid */
    int nn;
    tdx_ptrvec ios;               /* loads and stores computed from pid */
    tdx_ptrvec accs;              /* tl.zeros / tl.full calls whose shape gains _TDX_R */
    const char *shared;           /* a loaded name (or the pointer) the R outputs share */
} bplan;

static int tainted_name(const bplan *b, const char *name)
{
    for (int i = 0; i < b->nn; i++)
        if (strcmp(b->names[i], name) == 0)
            return 1;
    return 0;
}

static int mentions_tainted(const bplan *b, const tdx_src_node *n)
{
    for (int i = 0; n && i < b->nn; i++)
        if (fam_mentions(n, b->names[i]))
            return 1;
    return 0;
}

/* The kernel's calls are all allowed, it has no subscripts and no parameter
 * that would clash or has a default. */
static int plain_kernel(fam_task *t, tdx_src_node *def)
{
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
        if (!p->name || tdx_src_kid(p, TDX_SRC_R_DEFAULT) || (p->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR)) ||
            strncmp(p->name, "_tdx", 4) == 0 || strncmp(p->name, "_TDX", 4) == 0)
            return 0;
    tdx_ptrvec subs = {0}, calls = {0}, rets = {0};
    fam_collect(t, def, TDX_SRC_SUBSCRIPT, &subs);
    fam_collect(t, def, TDX_SRC_RETURN, &rets);
    if (subs.len || rets.len)
        return 0;
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *fn = tdx_src_call_func(calls.items[i]);
        char *d = tdx_src_dotted(fn, &t->arena);
        if (d && in_list(d, allowed))
            continue;
        if (fn && fn->kind == TDX_SRC_ATTRIBUTE && fn->name && strcmp(fn->name, "to") == 0)
            continue;
        return 0;
    }
    return 1;
}

/* Names computed from the pid, to a fixed point over every assignment. */
static void taint(fam_task *t, tdx_src_node *def, bplan *b)
{
    tdx_ptrvec as = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &as);
    fam_collect(t, def, TDX_SRC_AUGASSIGN, &as);
    for (int pass = 0, grew = 1; grew && pass < 8; pass++) {
        grew = 0;
        for (size_t i = 0; i < as.len; i++) {
            tdx_src_node *s = as.items[i], *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
            if (!mentions_tainted(b, v))
                continue;
            for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg; tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
                if (tg->kind == TDX_SRC_NAME && tg->name && !tainted_name(b, tg->name) && b->nn < MAXN) {
                    b->names[b->nn++] = tg->name;
                    grew = 1;
                }
        }
    }
}

/* Every name computed from the pid inside a loop is local to that loop, or
 * an accumulator created outside it by tl.zeros / tl.full with a tuple shape
 * (collected into b->accs). */
static int loop_names_ok(fam_task *t, tdx_src_node *def, bplan *b)
{
    tdx_ptrvec as = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &as);
    fam_collect(t, def, TDX_SRC_AUGASSIGN, &as);
    for (int i = 1; i < b->nn; i++) {
        const char *name = b->names[i];
        const tdx_src_node *outside = NULL, *inside = NULL;
        int n_outside = 0;
        for (size_t j = 0; j < as.len; j++) {
            tdx_src_node *s = as.items[j], *tg = tdx_src_kid(s, TDX_SRC_R_TARGET);
            if (!tg || tg->kind != TDX_SRC_NAME || !tg->name || strcmp(tg->name, name) != 0)
                continue;
            if (loop_of(s, def)) {
                if (inside && loop_of(inside, def) != loop_of(s, def))
                    return 0;
                inside = s;
            } else {
                outside = s;
                n_outside++;
            }
        }
        if (!inside || !outside)
            continue; /* bound in one place only */
        /* an accumulator: one creation outside the loop by tl.zeros / tl.full((...), ...) */
        tdx_src_node *v = tdx_src_kid(outside, TDX_SRC_R_VALUE);
        tdx_src_node *fn = v && v->kind == TDX_SRC_CALL ? tdx_src_call_func(v) : NULL;
        tdx_src_node *shape = fn ? tdx_src_call_arg(v, 0) : NULL;
        if (!shape && fn)
            shape = tdx_src_call_kwarg(v, "shape");
        if (n_outside != 1 || outside->kind != TDX_SRC_ASSIGN || !fn ||
            !(tdx_src_is_dotted(fn, "tl.zeros") || tdx_src_is_dotted(fn, "tl.full")) || !shape ||
            shape->kind != TDX_SRC_TUPLE || !(shape->flags & TDX_SRC_F_PAREN))
            return 0;
        tdx_ptrvec_push(&t->arena, &b->accs, v);
    }
    return 1;
}

/* Loads and stores: those computed from the pid go to b->ios; one load in a
 * loop that is not names the shared tile. No atomics (checked by the call
 * list). */
static int sort_io(fam_task *t, tdx_src_node *def, bplan *b)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i], *ptr;
        int io = fam_io_call(c, &ptr), store = io == FAM_IO_STORE;
        if (io == FAM_IO_NONE)
            continue;
        if (!ptr)
            return 0;
        if (mentions_tainted(b, ptr)) {
            tdx_ptrvec_push(&t->arena, &b->ios, c);
        } else if (store) {
            return 0; /* every program along the axis would write it: keep them apart */
        } else if (loop_of(c, def) && !b->shared) {
            tdx_src_node *s = c->parent;
            tdx_src_node *tg = s && s->kind == TDX_SRC_ASSIGN ? tdx_src_kid(s, TDX_SRC_R_TARGET) : NULL;
            b->shared = tg && tg->kind == TDX_SRC_NAME && tg->name ? tg->name : "a tile";
        }
    }
    return b->shared != NULL && b->ios.len > 0;
}

static tdx_status block_kernel(fam_task *t, tdx_src_node *def, tdx_rw_emit_fn emit, void *ud)
{
    if (!plain_kernel(t, def))
        return TDX_OK;
    tdx_status st = TDX_OK;
    /* each top-level NAME = tl.program_id(A), A > 0 (axis 0 of a 1-D grid is fold-programs') */
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s && !st; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        tdx_src_node *v = s->kind == TDX_SRC_ASSIGN ? tdx_src_kid(s, TDX_SRC_R_VALUE) : NULL;
        tdx_src_node *tg = v ? tdx_src_kid(s, TDX_SRC_R_TARGET) : NULL;
        if (!v || v->kind != TDX_SRC_CALL || !tdx_src_is_dotted(tdx_src_call_func(v), "tl.program_id") || !tg ||
            tg->kind != TDX_SRC_NAME || !tg->name || tdx_src_next(s, TDX_SRC_R_TARGET, tg))
            continue;
        bplan b;
        memset(&b, 0, sizeof b);
        b.pid_stmt = s;
        tdx_src_node *a = tdx_src_call_arg(v, 0);
        if (!a)
            a = tdx_src_call_kwarg(v, "axis");
        if (!a || tdx_src_int_value(t->m, a, &b.axis) != TDX_OK || b.axis < 1 || b.axis > 2)
            continue;
        b.names[b.nn++] = tg->name;
        taint(t, def, &b);
        if (!loop_names_ok(t, def, &b) || !sort_io(t, def, &b))
            continue;
        /* the loops' bounds and the branches must not depend on the pid */
        tdx_ptrvec fors = {0}, ifs = {0};
        fam_collect(t, def, TDX_SRC_FOR, &fors);
        fam_collect(t, def, TDX_SRC_IF, &ifs);
        fam_collect(t, def, TDX_SRC_WHILE, &ifs);
        int bad = 0;
        for (size_t i = 0; i < fors.len && !bad; i++)
            bad = mentions_tainted(&b, tdx_src_kid(fors.items[i], TDX_SRC_R_ITER));
        for (size_t i = 0; i < ifs.len && !bad; i++)
            bad = mentions_tainted(&b, tdx_src_kid(ifs.items[i], TDX_SRC_R_TEST));
        if (bad)
            continue;
        /* every launch: a grid tuple that has the axis */
        tdx_ptrvec launches = {0};
        for (size_t i = 0; i < t->launches.len && !bad; i++) {
            tdx_src_node *L = t->launches.items[i];
            if (fam_launched_kernel(t, L) != def)
                continue;
            tdx_src_node *g = fam_grid_of(t, L);
            if (!g || g->kind != TDX_SRC_TUPLE || tdx_src_count(g, TDX_SRC_R_ELT) <= (size_t)b.axis ||
                tdx_src_call_kwarg(L, "_tdx_np"))
                bad = 1;
            else
                tdx_ptrvec_push(&t->arena, &launches, L);
        }
        if (bad || !launches.len)
            continue;
        tdx_src_node *last = NULL;
        for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
            last = p;
        if (!last)
            continue;
        /* R rows, and the warps that leave each thread four columns of the
         * widest tile (the weights a thread loads then serve four outputs
         * each: R FMAs per column load become 4R per R + 4 loads) */
        long long widest = fam_widest_arange(t, def);
        int pw = widest >= 128 ? (int)(widest / 128 > 8 ? 8 : widest / 128) : 0;
        if (fam_self_tuned(def))
            pw = 0; /* its decorator passes num_warps: no second one at the launch */
        static const int rows[] = {32, 16, 32, 64};
        static const int few[] = {1, 1, 0, 0};
        for (size_t ri = 0; ri < sizeof rows / sizeof rows[0] && !st; ri++) {
            int R = rows[ri];
            int warps = few[ri] ? pw : 0;
            if (few[ri] && !warps)
                continue;
            fam_edits e = {0};
            fam_edit(t, &e, last->end, last->end, ", _tdx_np, _TDX_R: tl.constexpr");
            size_t vl;
            const char *vt = tdx_src_text(t->m, v, &vl);
            fam_edit(t, &e, v->start, v->end,
                     tdx_arena_printf(&t->arena, "%.*s * _TDX_R + tl.arange(0, _TDX_R)[:, None]\n%*s_tdx_live = %s < _tdx_np",
                                      (int)vl, vt, s->col - 1, "", tg->name));
            for (size_t i = 0; i < b.ios.len; i++)
                fam_mask_live(t, &e, b.ios.items[i]);
            for (size_t i = 0; i < b.accs.len; i++) {
                tdx_src_node *c = b.accs.items[i], *shape = tdx_src_call_arg(c, 0);
                if (!shape)
                    shape = tdx_src_call_kwarg(c, "shape");
                fam_edit(t, &e, shape->start + 1, shape->start + 1, "_TDX_R, ");
            }
            int same_warps = 1;
            for (size_t li = 0; li < launches.len; li++) {
                tdx_src_node *L = launches.items[li], *g = fam_grid_of(t, L);
                tdx_src_node *ga = tdx_src_kid(g, TDX_SRC_R_ELT);
                for (long long k = 0; k < b.axis && ga; k++)
                    ga = tdx_src_next(g, TDX_SRC_R_ELT, ga);
                if (!ga)
                    break;
                size_t gl;
                const char *gt = tdx_src_text(t->m, ga, &gl);
                fam_edit(t, &e, ga->start, ga->end, tdx_arena_printf(&t->arena, "triton.cdiv(%.*s, %d)", (int)gl, gt, R));
                fam_set_kwarg(t, &e, L, "_tdx_np", tdx_arena_printf(&t->arena, "%.*s", (int)gl, gt));
                fam_set_kwarg(t, &e, L, "_TDX_R", tdx_arena_printf(&t->arena, "%d", R));
                if (warps) {
                    long long now = 4;
                    tdx_src_node *nw = tdx_src_call_kwarg(L, "num_warps");
                    if (nw && tdx_src_int_value(t->m, nw, &now) != TDX_OK)
                        now = -1;
                    same_warps &= now == warps;
                    fam_set_kwarg(t, &e, L, "num_warps", tdx_arena_printf(&t->arena, "%d", warps));
                }
            }
            if (warps && same_warps)
                continue; /* the launch has those warps already: the plain candidate covers it */
            char sum[256];
            snprintf(sum, sizeof sum,
                     "%s: %d programs along grid axis %lld in one ('%s' a column of %d), '%s' loaded once for all %d%s",
                     def->name ? def->name : "kernel", R, b.axis, tg->name, R, b.shared, R,
                     warps ? tdx_arena_printf(&t->arena, "; num_warps=%d (4 columns a thread)", warps) : "");
            st = fam_emit(t, &e, emit, ud, "block-outputs", sum);
        }
        break;
    }
    return st;
}

tdx_status fam_block_outputs(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++)
        st = block_kernel(t, t->kernels.items[k], emit, ud);
    return st;
}
