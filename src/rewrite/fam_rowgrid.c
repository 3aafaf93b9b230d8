/* row-grid: a flat kernel that finds each element's row by dividing its
 * offset (tdx_km_row_gather_of) runs on a 2-D grid of (row, block of the
 * row) instead, and loads its row's values once:
 *
 *     offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
 *     c = (offs // HW) % C
 *     mean = tl.load(mean_ptr + c, mask=mask)
 * becomes
 *     _tdx_row = tl.program_id(0)
 *     _tdx_col = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
 *     _tdx_live = _tdx_col < HW
 *     offs = _tdx_row * HW + _tdx_col
 *     c = (_tdx_row) % C
 *     mean = tl.load(mean_ptr + c)
 *
 * (offsets written through `pid = tl.program_id(0)` and `start = pid *
 * BLOCK`, as the tutorials do, lose those two lines too). offs keeps its
 * values on the live lanes, so every other use of it reads
 * the same elements; the lanes past the row's end (a block overhanging HW)
 * are masked off in every other load and store. The row loads are scalars:
 * the row expression of a live program is the one an element of that row
 * computed before, so no mask is needed. Each launch's 1-D grid entry
 * triton.cdiv(X, B) becomes (triton.cdiv(X, (D)), triton.cdiv((D), B)), D
 * the argument the launch passes for the extent. Rows go on axis 0 (up to
 * 2^31 - 1 programs; axis 1 takes at most 65535 blocks of a row). Not done
 * when the bench shape's rows are shorter than the block (most lanes would
 * idle). */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

/* The one grid entry of launch L (a 1-tuple, or a lambda returning one) when
 * it is a call of triton.cdiv or cdiv with two arguments; else NULL. */
static tdx_src_node *grid_cdiv(fam_task *t, tdx_src_node *L)
{
    tdx_src_node *g = fam_grid_of(t, L);
    if (g && g->kind == TDX_SRC_LAMBDA)
        g = tdx_src_kid(g, TDX_SRC_R_BODY);
    if (!g || g->kind != TDX_SRC_TUPLE || tdx_src_count(g, TDX_SRC_R_ELT) != 1)
        return NULL;
    tdx_src_node *c = tdx_src_kid(g, TDX_SRC_R_ELT);
    tdx_src_node *f = c && c->kind == TDX_SRC_CALL ? tdx_src_call_func(c) : NULL;
    if (!f || !(tdx_src_is_dotted(f, "triton.cdiv") || tdx_src_is_name(f, "cdiv")) || tdx_src_call_nargs(c) != 2 ||
        tdx_src_next(c, TDX_SRC_R_KEYWORD, NULL))
        return NULL;
    return c;
}

/* A row load without its mask and other: FUNC(PTR[, other keywords]). */
static void scalar_load(fam_task *t, fam_edits *e, tdx_src_node *call)
{
    size_t fl, pl;
    const char *ft = tdx_src_text(t->m, tdx_src_call_func(call), &fl);
    tdx_src_node *p;
    if (fam_io_call(call, &p) != FAM_IO_LOAD || !p)
        return;
    const char *pt = tdx_src_text(t->m, p, &pl);
    char *s = tdx_arena_printf(&t->arena, "%.*s(%.*s", (int)fl, ft, (int)pl, pt);
    for (tdx_src_node *k = tdx_src_next(call, TDX_SRC_R_KEYWORD, NULL); k && s;
         k = tdx_src_next(call, TDX_SRC_R_KEYWORD, k)) {
        if (k->name && (strcmp(k->name, "mask") == 0 || strcmp(k->name, "other") == 0 ||
                        strcmp(k->name, "pointer") == 0))
            continue;
        size_t kl;
        const char *kt = tdx_src_text(t->m, k, &kl);
        s = tdx_arena_printf(&t->arena, "%s, %.*s", s, (int)kl, kt);
    }
    if (s)
        fam_edit(t, e, call->start, call->end, tdx_arena_printf(&t->arena, "%s)", s));
}

static int is_row_load(const tdx_km_row_gather *g, const tdx_src_node *c)
{
    for (size_t i = 0; i < g->nloads; i++)
        if (g->loads[i] == c)
            return 1;
    return 0;
}

static tdx_status row_grid_kernel(fam_task *t, tdx_src_node *def, tdx_rw_emit_fn emit, void *ud)
{
    tdx_km_row_gather g;
    if (!tdx_km_row_gather_of(t->m, def, &g))
        return TDX_OK;
    static const char *const fresh[] = {"_tdx_row", "_tdx_col", "_tdx_live"};
    for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++)
        if (tdx_src_count_name(def, fresh[i]))
            return TDX_OK;
    long long d = 0, b = 0;
    if (fam_bench_param(t, def, g.extent, &d) && fam_size_value(t, def, g.block, &b) && d > 0 && d < b)
        return TDX_OK; /* rows shorter than a block: most lanes would idle */
    fam_edits e = {0};
    size_t nl = 0;
    for (size_t i = 0; i < t->launches.len; i++) {
        tdx_src_node *L = t->launches.items[i];
        if (fam_launched_kernel(t, L) != def)
            continue;
        tdx_src_node *c = grid_cdiv(t, L), *arg = fam_launch_arg(L, def, g.extent, NULL);
        if (!c || !arg)
            return TDX_OK;
        size_t xl, yl, al;
        const char *xt = tdx_src_text(t->m, tdx_src_call_arg(c, 0), &xl);
        const char *yt = tdx_src_text(t->m, tdx_src_call_arg(c, 1), &yl);
        const char *at = tdx_src_text(t->m, arg, &al);
        size_t fl;
        const char *ft = tdx_src_text(t->m, tdx_src_call_func(c), &fl);
        int atom = fam_atom(arg);
        const char *lp = atom ? "" : "(", *rp = atom ? "" : ")";
        fam_edit(t, &e, c->start, c->end,
                 tdx_arena_printf(&t->arena, "%.*s(%.*s, %s%.*s%s), %.*s(%s%.*s%s, %.*s)", (int)fl, ft, (int)xl, xt,
                                  lp, (int)al, at, rp, (int)fl, ft, lp, (int)al, at, rp, (int)yl, yt));
        nl++;
    }
    if (!nl)
        return TDX_OK;
    /* the offsets from the row and its block */
    const tdx_src_node *os = g.offs_stmt, *ov = tdx_src_kid(os, TDX_SRC_R_VALUE);
    size_t ls = fam_line_start(t, os->start), bl;
    const char *bt = tdx_src_text(t->m, g.block, &bl);
    int ind = (int)(os->start - ls);
    fam_edit(t, &e, ls, ls,
             tdx_arena_printf(&t->arena,
                              "%.*s_tdx_row = tl.program_id(0)\n"
                              "%.*s_tdx_col = tl.program_id(1) * %.*s + tl.arange(0, %.*s)\n"
                              "%.*s_tdx_live = _tdx_col < %s\n",
                              ind, t->src + ls, ind, t->src + ls, (int)bl, bt, (int)bl, bt, ind, t->src + ls,
                              g.extent));
    fam_edit(t, &e, ov->start, ov->end, tdx_arena_printf(&t->arena, "_tdx_row * %s + _tdx_col", g.extent));
    for (size_t i = 0; i < g.ndead; i++) { /* pid = tl.program_id(0), start = pid * B: their lines go */
        size_t ds = fam_line_start(t, g.dead[i]->start), de = g.dead[i]->end;
        while (de < t->len && t->src[de] != '\n')
            de++;
        fam_edit(t, &e, ds, de < t->len ? de + 1 : de, "");
    }
    fam_edit(t, &e, g.div->start, g.div->end, "_tdx_row"); /* an atom: no parentheses needed */
    /* row loads become scalars; every other load and store skips the lanes
     * past the row's end */
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        tdx_src_node *ptr;
        if (is_row_load(&g, c))
            scalar_load(t, &e, c);
        else if (fam_io_call(c, &ptr) != FAM_IO_NONE)
            fam_mask_live(t, &e, c);
    }
    char sum[256];
    snprintf(sum, sizeof sum,
             "%s: rows of %s elements on grid axis 0, blocks of a row on axis 1; %zu per-row load%s of %s once a "
             "program, no division an element",
             def->name ? def->name : "kernel", g.extent, g.nloads, g.nloads == 1 ? "" : "s", g.row);
    return fam_emit(t, &e, emit, ud, "row-grid", sum);
}

tdx_status fam_row_grid(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++)
        st = row_grid_kernel(t, t->kernels.items[k], emit, ud);
    return st;
}
