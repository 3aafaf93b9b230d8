/* dot-accumulate: a loop that adds the outer product of a column and a row
 * per iteration of a reduction index (tdx_km_dot_accumulable, the loops
 * rule TDX024 reports) takes the index _TDX_BK values at a time through
 * tl.dot:
 *
 *     for ci in range(0, C_in):                 for _tdx_c0 in range(0, C_in, _TDX_BK):
 *         ...                                       ci = _tdx_c0 + tl.arange(0, _TDX_BK)
 *         w = tl.load(W + co * S + ci, m)    ->     ...
 *         x = tl.load(X + ci * L + offs, n)         w = tl.load(W + co * S + ci[None, :], (m) & (ci[None, :] < C_in), other=0.0)
 *         acc += w * x                              x = tl.load(X + ci[:, None] * L + offs, (n) & (ci[:, None] < C_in), other=0.0)
 *                                                   acc += tl.dot(w, x, input_precision="ieee")
 *
 * The column becomes an [R, _TDX_BK] tile, the row a [_TDX_BK, BLOCK] one;
 * the lanes past the loop's end load zeros in both, so they add nothing.
 * input_precision="ieee" keeps fp32 products and sums (an FMA dot, not
 * tf32): the same terms in another order. _TDX_BK is 16 (tl.dot's least K)
 * and the launch runs 4 warps (the dot's operands blocked over them) and
 * num_stages=1: the loop's loads are not staged through shared memory,
 * which an FMA dot reads from registers anyway (on the H200 conv1d 2.37 ->
 * 2.09 ms, conv2d 2.78 -> 2.38; bench/RESULTS.md). */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

enum { MAX_LOOPS = 4 };

/* Append `V[...]` in place of every V read in e. */
static void index_var(fam_task *t, fam_edits *e, tdx_src_node *expr, const char *v, const char *idx)
{
    tdx_ptrvec names = {0};
    fam_collect(t, expr, TDX_SRC_NAME, &names);
    for (size_t i = 0; i < names.len; i++) {
        tdx_src_node *n = names.items[i];
        if (tdx_src_is_name(n, v))
            fam_edit(t, e, n->end, n->end, idx);
    }
}

/* The load gets `& (V[idx] < B)` on its mask (or that mask) and other=0.0. */
static void mask_load(fam_task *t, fam_edits *e, const tdx_km_access *a, const char *v, const char *idx,
                      const char *bound)
{
    tdx_src_node *call = (tdx_src_node *)a->call, *mk = (tdx_src_node *)a->mask, *other = (tdx_src_node *)a->other;
    char *cond = tdx_arena_printf(&t->arena, "%s%s < %s", v, idx, bound);
    if (mk) {
        size_t ml;
        const char *mt = tdx_src_text(t->m, mk, &ml);
        fam_edit(t, e, mk->start, mk->end, tdx_arena_printf(&t->arena, "(%.*s) & (%s)", (int)ml, mt, cond));
    } else {
        fam_set_kwarg(t, e, call, "mask", cond);
    }
    if (other)
        fam_edit(t, e, other->start, other->end, "0.0");
    else
        fam_set_kwarg(t, e, call, "other", "0.0");
}

/* Only blanks before n on its line. */
static int starts_line(const fam_task *t, const tdx_src_node *n)
{
    for (size_t p = fam_line_start(t, n->start); p < n->start; p++)
        if (t->src[p] != ' ' && t->src[p] != '\t')
            return 0;
    return 1;
}

static tdx_status dot_kernel(fam_task *t, const tdx_km_file *f, const tdx_km_kernel *k, tdx_rw_emit_fn emit,
                             void *ud)
{
    tdx_km_dotacc d[MAX_LOOPS];
    size_t n = tdx_km_dot_accumulable(f, k, d, MAX_LOOPS);
    tdx_src_node *def = (tdx_src_node *)k->def, *last = NULL;
    if (!n || !k->launches.len || fam_mentions(def, "_TDX_BK"))
        return TDX_OK;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
        last = p;
    if (!last || (last->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR)))
        return TDX_OK;
    fam_edits e = {0};
    int done = 0, next = 0;
    size_t shown = 0; /* the loop the summary names */
    for (size_t i = 0; i < n; i++) {
        tdx_src_node *loop = (tdx_src_node *)d[i].loop, *tg = tdx_src_kid(loop, TDX_SRC_R_TARGET);
        tdx_src_node *iter = tdx_src_kid(loop, TDX_SRC_R_ITER), *first = tdx_src_kid(loop, TDX_SRC_R_BODY);
        if (!tg || !iter || !first || !starts_line(t, first))
            continue;
        char *c0;
        do
            c0 = tdx_arena_printf(&t->arena, "_tdx_c%d", next++);
        while (c0 && fam_mentions(def, c0));
        size_t bl, il;
        const char *bt = tdx_src_text(t->m, d[i].bound, &bl);
        const char *ind = t->src + fam_line_start(t, first->start);
        il = first->start - fam_line_start(t, first->start);
        char *bound = tdx_arena_printf(&t->arena, "%.*s", (int)bl, bt);
        if (!c0 || !bound)
            return TDX_ERR_NOMEM;
        fam_edit(t, &e, tg->start, tg->end, c0);
        fam_edit(t, &e, iter->start, iter->end, tdx_arena_printf(&t->arena, "range(0, %s, _TDX_BK)", bound));
        fam_edit(t, &e, fam_line_start(t, first->start), fam_line_start(t, first->start),
                 tdx_arena_printf(&t->arena, "%.*s%s = %s + tl.arange(0, _TDX_BK)\n", (int)il, ind, d[i].var, c0));
        index_var(t, &e, (tdx_src_node *)d[i].col->ptr, d[i].var, "[None, :]");
        index_var(t, &e, (tdx_src_node *)d[i].row->ptr, d[i].var, "[:, None]");
        mask_load(t, &e, d[i].col, d[i].var, "[None, :]", bound);
        mask_load(t, &e, d[i].row, d[i].var, "[:, None]", bound);
        const tdx_src_node *cs = d[i].col->call->parent, *rs = d[i].row->call->parent;
        const char *cn = tdx_src_kid(cs, TDX_SRC_R_TARGET)->name, *rn = tdx_src_kid(rs, TDX_SRC_R_TARGET)->name;
        fam_edit(t, &e, d[i].prod->start, d[i].prod->end,
                 tdx_arena_printf(&t->arena, "tl.dot(%s, %s, input_precision=\"ieee\")", cn, rn));
        if (!done++)
            shown = i;
    }
    if (!done)
        return TDX_OK;
    fam_edit(t, &e, last->end, last->end, ", _TDX_BK: tl.constexpr");
    int tuned = fam_self_tuned(def);
    /* a row under 256 wide, its block passed by every launch as a literal:
     * 256 (each thread then holds more of the accumulator for every
     * operand it loads; conv1d 2.09 -> 1.71 ms on the H200) */
    const tdx_src_node *ws = d[shown].row->addr.axis[0].size;
    const char *wname = done == 1 && d[shown].cols < 256 && tdx_src_is_name(ws, NULL) ? ws->name : NULL;
    for (size_t j = 0; wname && j < k->launches.len; j++)
        if (!fam_launch_block(t, NULL, (tdx_src_node *)((const tdx_km_launch *)k->launches.items[j])->call, wname,
                              256))
            wname = NULL;
    for (size_t j = 0; j < k->launches.len; j++) {
        const tdx_km_launch *L = k->launches.items[j];
        fam_set_kwarg(t, &e, L->call, "_TDX_BK", "16");
        if (wname)
            (void)fam_launch_block(t, &e, (tdx_src_node *)L->call, wname, 256);
        if (!tuned) {
            fam_set_kwarg(t, &e, L->call, "num_warps", "4");
            fam_set_kwarg(t, &e, L->call, "num_stages", "1");
        }
    }
    char sum[256];
    snprintf(sum, sizeof sum,
             "%s: the loop over '%s' adds %s's outer products 16 values at a time through tl.dot "
             "(%lld x 16 by 16 x %lld, input_precision=\"ieee\")%s%s",
             k->name, d[shown].var, d[shown].acc, d[shown].rows, wname ? 256 : d[shown].cols,
             tuned ? "" : ", num_warps=4, num_stages=1",
             wname ? tdx_arena_printf(&t->arena, ", %s %lld -> 256", wname, d[shown].cols) : "");
    return fam_emit(t, &e, emit, ud, "dot-accumulate", sum);
}

tdx_status fam_dot_accumulate(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    const tdx_km_file *f = fam_model(t);
    tdx_status st = TDX_OK;
    for (size_t i = 0; f && i < f->kernels.len && !st; i++)
        st = dot_kernel(t, f, f->kernels.items[i], emit, ud);
    return st;
}
