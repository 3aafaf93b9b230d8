/* fold-programs: R programs of a 1-D grid become one. A kernel whose every
 * program handles one small tile (a row of 64 elements, one head of one
 * position) runs on a grid of a million programs, each doing a few hundred
 * bytes of work: the cost of starting a CTA and the few loads it has in
 * flight, not the memory system, bound the time. Folding R consecutive
 * programs into one gives every tile a leading axis of R rows:
 *
 *     pid = tl.program_id(0)
 * becomes
 *     pid = tl.program_id(0) * _TDX_R + tl.arange(0, _TDX_R)[:, None]
 *     _tdx_live = pid < _tdx_np
 *
 * so that everything computed from pid is an [R, 1] column and broadcasts
 * against the kernel's 1-D tiles into [R, BLOCK] tiles; every load and store
 * is masked by _tdx_live (the programs past the old grid's end), and the
 * launch runs cdiv(G, R) programs with _tdx_np = G.
 *
 * A reduction of a tile computed from pid (a row softmax: tl.max(x, axis=0)
 * of the program's row) reduces the new tile along its last axis instead
 * and keeps it: tl.max(x, axis=1, keep_dims=True) is an [R, 1] column, so
 * `x - m` and the row's stores broadcast as the scalar did. Reductions of
 * tiles that do not depend on pid stay 1-D and are left as they are.
 *
 * Only kernels where that broadcast is the whole story are changed: one
 * tl.program_id(0) bound to a name, straight-line code (no loop, no branch,
 * no return), 1-D tiles only (no subscripts), only element-wise tl calls
 * and tl.sum / max / min / argmax / argmin over axis 0 (no scan, dot,
 * reshape or atomic), no helper calls, every load and store at an address
 * computed from pid, no parameter with a default; and every launch of it on
 * a 1-D grid written as a tuple. */
#include <stdio.h>
#include <string.h>

#include "rewrite/fam_common.h"

/* tl calls that act element by element on broadcast operands. */
static const char *const elementwise[] = {
    "tl.program_id", "tl.arange", "tl.load", "tl.store", "tl.where", "tl.maximum", "tl.minimum",
    "tl.exp", "tl.exp2", "tl.log", "tl.log2", "tl.sqrt", "tl.rsqrt", "tl.abs", "tl.sigmoid", "tl.cos",
    "tl.sin", "tl.fma", "tl.erf", "tl.floor", "tl.ceil", "tl.fdiv", "tl.div_rn", "tl.clamp", "tl.full",
    "tl.zeros", "tl.cdiv", "tl.multiple_of", "tl.max_contiguous", "tl.math.exp", "tl.math.exp2",
    "tl.math.log", "tl.math.sqrt", "tl.math.rsqrt", "tl.math.tanh", "tl.math.erf", "float", NULL};

/* Reductions that fold along a new last axis (axis=1, keep_dims=True). */
static const char *const reductions[] = {"tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

/* The kernel's shape allows folding: sets *pid_stmt to `NAME = tl.program_id(0)`. */
static int foldable(fam_task *t, tdx_src_node *def, tdx_src_node **pid_stmt)
{
    *pid_stmt = NULL;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
        if (!p->name || tdx_src_kid(p, TDX_SRC_R_DEFAULT) || (p->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR)) ||
            strncmp(p->name, "_tdx", 4) == 0 || strncmp(p->name, "_TDX", 4) == 0)
            return 0;
    /* straight-line statements only */
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN && s->kind != TDX_SRC_AUGASSIGN && s->kind != TDX_SRC_EXPR_STMT &&
            s->kind != TDX_SRC_PASS)
            return 0;
        if (s->kind == TDX_SRC_ASSIGN) {
            tdx_src_node *v = tdx_src_kid(s, TDX_SRC_R_VALUE), *tg = tdx_src_kid(s, TDX_SRC_R_TARGET);
            if (v && v->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(v), "tl.program_id")) {
                long long ax = -1;
                tdx_src_node *a = tdx_src_call_arg(v, 0);
                if (!a)
                    a = tdx_src_call_kwarg(v, "axis");
                if (*pid_stmt || !tdx_src_is_name(tg, NULL) || tdx_src_next(s, TDX_SRC_R_TARGET, tg) || !a ||
                    tdx_src_int_value(t->m, a, &ax) != TDX_OK || ax != 0)
                    return 0;
                *pid_stmt = s;
            }
        }
    }
    if (!*pid_stmt)
        return 0;
    tdx_ptrvec subs = {0}, calls = {0};
    fam_collect(t, def, TDX_SRC_SUBSCRIPT, &subs);
    if (subs.len)
        return 0;
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    int pids = 0;
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *fn = tdx_src_call_func(calls.items[i]);
        char *d = tdx_src_dotted(fn, &t->arena);
        if (d && strcmp(d, "tl.program_id") == 0)
            pids++;
        if (d && in_list(d, elementwise))
            continue;
        if (d && in_list(d, reductions)) {
            /* over axis 0 (or all of a 1-D tile), not already keeping dims */
            tdx_src_node *c = calls.items[i];
            tdx_src_node *ax = tdx_src_call_arg(c, 1);
            long long a = 0;
            if (!ax)
                ax = tdx_src_call_kwarg(c, "axis");
            if (!tdx_src_call_arg(c, 0) || tdx_src_call_kwarg(c, "keep_dims") || tdx_src_call_arg(c, 2) ||
                (ax && !(ax->kind == TDX_SRC_NAME && ax->name && strcmp(ax->name, "None") == 0) &&
                 (tdx_src_int_value(t->m, ax, &a) != TDX_OK || a != 0)))
                return 0;
            continue;
        }
        /* a method of a value (x.to(...)) is element-wise; a name is a helper or a builtin */
        if (fn && fn->kind == TDX_SRC_ATTRIBUTE && fn->name && strcmp(fn->name, "to") == 0)
            continue;
        return 0;
    }
    return pids == 1;
}

/* Names computed from pid (in program order, so a name bound from pid
 * before it is re-bound counts). */
static int tainted(fam_task *t, tdx_src_node *def, const char *pid, const char **names, int max)
{
    int n = 0;
    names[n++] = pid;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        tdx_src_node *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (!v || (s->kind != TDX_SRC_ASSIGN && s->kind != TDX_SRC_AUGASSIGN))
            continue;
        int hit = 0;
        for (int i = 0; i < n && !hit; i++)
            hit = fam_mentions(v, names[i]);
        if (!hit)
            continue;
        for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg; tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
            if (tdx_src_is_name(tg, NULL) && n < max)
                names[n++] = tg->name;
    }
    return n;
}

/* Every tl.load / tl.store reads or writes at an address computed from pid;
 * their mask arguments (or NULL) and calls go into masks/ios. */
static int addresses_follow_pid(fam_task *t, tdx_src_node *def, const char **names, int nn, tdx_ptrvec *ios)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i], *ptr;
        if (fam_io_call(c, &ptr) == FAM_IO_NONE)
            continue;
        int hit = 0;
        for (int k = 0; ptr && k < nn && !hit; k++)
            hit = fam_mentions(ptr, names[k]);
        if (!hit)
            return 0;
        tdx_ptrvec_push(&t->arena, ios, c);
    }
    return ios->len > 0;
}

void fam_mask_live(fam_task *t, fam_edits *e, tdx_src_node *c)
{
    int store = tdx_src_is_dotted(tdx_src_call_func(c), "tl.store");
    tdx_src_node *m = tdx_src_call_arg(c, store ? 2 : 1);
    if (!m)
        m = tdx_src_call_kwarg(c, "mask");
    if (m) {
        size_t ml;
        const char *mt = tdx_src_text(t->m, m, &ml);
        fam_edit(t, e, m->start, m->end, tdx_arena_printf(&t->arena, "(%.*s) & _tdx_live", (int)ml, mt));
    } else {
        fam_set_kwarg(t, e, c, "mask", "_tdx_live");
    }
}

static tdx_status fold_kernel(fam_task *t, tdx_src_node *def, tdx_rw_emit_fn emit, void *ud)
{
    tdx_src_node *ps;
    if (!foldable(t, def, &ps))
        return TDX_OK;
    const char *pid = tdx_src_kid(ps, TDX_SRC_R_TARGET)->name;
    const char *names[64];
    int nn = tainted(t, def, pid, names, 64);
    tdx_ptrvec ios = {0}, launches = {0};
    if (!addresses_follow_pid(t, def, names, nn, &ios))
        return TDX_OK;
    /* every launch: a 1-D grid written as a tuple, in a function body */
    for (size_t i = 0; i < t->launches.len; i++) {
        tdx_src_node *L = t->launches.items[i];
        if (fam_launched_kernel(t, L) != def)
            continue;
        tdx_src_node *g = fam_grid_of(t, L);
        if (!g || g->kind != TDX_SRC_TUPLE || tdx_src_count(g, TDX_SRC_R_ELT) != 1 ||
            tdx_src_call_kwarg(L, "_tdx_np"))
            return TDX_OK;
        tdx_ptrvec_push(&t->arena, &launches, L);
    }
    if (!launches.len)
        return TDX_OK;
    tdx_src_node *last = NULL;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
        last = p;
    if (!last)
        return TDX_OK;
    /* the reductions of tiles computed from pid */
    tdx_ptrvec calls = {0}, reds = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        char *d = tdx_src_dotted(tdx_src_call_func(c), &t->arena);
        if (!d || !in_list(d, reductions))
            continue;
        int hit = 0;
        for (int k = 0; k < nn && !hit; k++)
            hit = fam_mentions(tdx_src_call_arg(c, 0), names[k]);
        if (hit)
            tdx_ptrvec_push(&t->arena, &reds, c);
    }
    tdx_src_node *pv = tdx_src_kid(ps, TDX_SRC_R_VALUE);
    /* R rows: tiles of about 4096 elements first, then 1024 and 2048 */
    int rows[3] = {16, 4, 64};
    long long w = fam_widest_arange(t, def);
    if (w > 0) {
        static const long long target[] = {4096, 1024, 2048};
        for (int k = 0; k < 3; k++)
            rows[k] = fam_rows_for(w, target[k]);
    }
    tdx_status st = TDX_OK;
    for (size_t ri = 0; ri < sizeof rows / sizeof rows[0] && !st; ri++) {
        int dup = 0;
        for (size_t rj = 0; rj < ri; rj++)
            dup |= rows[rj] == rows[ri];
        if (dup)
            continue;
        fam_edits e = {0};
        fam_edit(t, &e, last->end, last->end, ", _tdx_np, _TDX_R: tl.constexpr");
        size_t vl;
        const char *vt = tdx_src_text(t->m, pv, &vl);
        fam_edit(t, &e, pv->start, pv->end,
                 tdx_arena_printf(&t->arena, "%.*s * _TDX_R + tl.arange(0, _TDX_R)[:, None]\n%*s_tdx_live = %s < _tdx_np",
                                  (int)vl, vt, ps->col - 1, "", pid));
        for (size_t i = 0; i < ios.len; i++)
            fam_mask_live(t, &e, ios.items[i]);
        for (size_t i = 0; i < reds.len; i++) {
            tdx_src_node *c = reds.items[i], *ax = tdx_src_call_arg(c, 1);
            if (ax)
                fam_edit(t, &e, ax->start, ax->end, "1");
            else
                fam_set_kwarg(t, &e, c, "axis", "1");
            fam_set_kwarg(t, &e, c, "keep_dims", "True");
        }
        for (size_t li = 0; li < launches.len; li++) {
            tdx_src_node *L = launches.items[li], *g = fam_grid_of(t, L);
            tdx_src_node *g0 = tdx_src_kid(g, TDX_SRC_R_ELT);
            size_t gl;
            const char *gt = tdx_src_text(t->m, g0, &gl);
            fam_edit(t, &e, g0->start, g0->end,
                     tdx_arena_printf(&t->arena, "triton.cdiv(%.*s, %d)", (int)gl, gt, rows[ri]));
            fam_set_kwarg(t, &e, L, "_tdx_np", tdx_arena_printf(&t->arena, "%.*s", (int)gl, gt));
            fam_set_kwarg(t, &e, L, "_TDX_R", tdx_arena_printf(&t->arena, "%d", rows[ri]));
        }
        char sum[200];
        snprintf(sum, sizeof sum, "%s: %d programs folded into one, each tile gaining a leading axis of %d rows",
                 def->name ? def->name : "kernel", rows[ri], rows[ri]);
        st = fam_emit(t, &e, emit, ud, "fold-programs", sum);
    }
    return st;
}

tdx_status fam_fold_programs(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++)
        st = fold_kernel(t, t->kernels.items[k], emit, ud);
    return st;
}
