/* defer-reduction: a loop that reduces every iteration's tile into a
 * scalar accumulator (or one axis of it into a tile accumulator: the column
 * sums of a 2-D tile),
 *
 *     acc += tl.sum(x, axis=0)            m = tl.maximum(m, tl.max(x, axis=0))
 *
 * pays a cross-warp reduction through shared memory, with its barriers, on
 * every iteration, and the next iteration's loaded values wait behind it
 * (ReduceOpToLLVM.cpp). An elementwise fp32 accumulator of the tile's shape
 * takes the tiles instead, and the one reduction follows the loop -- what
 * torch Inductor generates for looped reductions:
 *
 *     _tdx_r0 = tl.zeros([BLOCK], dtype=tl.float32)
 *     for ...:
 *         _tdx_r0 += x
 *     acc += tl.sum(_tdx_r0, axis=0)
 *
 * (tl.full(..., float("-inf") / float("inf"), tl.float32) and tl.maximum /
 * tl.minimum for maxima and minima). The same values are reduced, in
 * another order. Which statements: tdx_km_deferrable (model_defer.c), the
 * ones rule TDX021 reports. One candidate per kernel rewrites all of them. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

enum { MAX_DEFER = 16 }; /* three edits each, within fam_edits' 64 */

/* The blanks that indent the line of node n. */
static char *indent_of(fam_task *t, const tdx_src_node *n)
{
    size_t ls = fam_line_start(t, n->start);
    return tdx_arena_printf(&t->arena, "%.*s", (int)(n->start - ls), t->src + ls);
}

/* `[S0, S1, ...]`: the tile's shape, left to right; NULL when out of memory. */
static char *shape_text(fam_task *t, const tdx_km_deferred *d)
{
    size_t cap = 1;
    for (int a = 0; a < d->rank; a++) {
        size_t l;
        (void)tdx_src_text(t->m, d->shape[a], &l);
        cap += l + 2;
    }
    char *axes = tdx_arena_alloc(&t->arena, cap);
    if (!axes || !tdx_km_deferred_shape(t->m, d, ", ", axes, cap))
        return NULL;
    return tdx_arena_printf(&t->arena, "[%s]", axes);
}

/* _tdx_r0, _tdx_r1, ...: the next name that kernel def does not use. */
static char *fresh_name(fam_task *t, const tdx_src_node *def, int *next)
{
    for (;; (*next)++) {
        char *nm = tdx_arena_printf(&t->arena, "_tdx_r%d", *next);
        if (!nm || !fam_mentions(def, nm)) {
            (*next)++;
            return nm;
        }
    }
}

/* The text of one statement's three edits: the block accumulator's line
 * before the loop, the elementwise update in place of the statement, and
 * the one reduction's line after the loop. */
typedef struct deferral {
    const tdx_km_deferred *d;
    char *name, *init, *update, *final;
} deferral;

static tdx_status plan(fam_task *t, const tdx_km_deferred *d, char *name, deferral *out)
{
    static const char *const fold[] = {"", "sum", "max", "min"};
    static const char *const combine[] = {"", "", "maximum", "minimum"};
    char *shape = shape_text(t, d), *ind = indent_of(t, d->loop);
    size_t xl;
    const char *x = tdx_src_text(t->m, d->value, &xl);
    /* a value written over several lines stays inside brackets */
    int paren = memchr(x, '\n', xl) != NULL;
    const char *axis = d->axis >= 0  ? tdx_arena_printf(&t->arena, ", axis=%d", d->axis)
                       : d->rank == 1 ? ", axis=0"
                                      : "";
    out->d = d;
    out->name = name;
    if (!shape || !ind || !name || !axis)
        return TDX_ERR_NOMEM;
    if (d->update == TDX_KM_UPDATE_SUM) {
        out->init = tdx_arena_printf(&t->arena, "%s%s = tl.zeros(%s, dtype=tl.float32)\n", ind, name, shape);
        out->update = tdx_arena_printf(&t->arena, "%s += %s%.*s%s", name, paren ? "(" : "", (int)xl, x,
                                       paren ? ")" : "");
        out->final = tdx_arena_printf(&t->arena, "%s%s += tl.sum(%s%s)", ind, d->acc, name, axis);
    } else {
        int mx = d->update == TDX_KM_UPDATE_MAX;
        out->init = tdx_arena_printf(&t->arena, "%s%s = tl.full(%s, float(\"%s\"), tl.float32)\n", ind, name,
                                     shape, mx ? "-inf" : "inf");
        out->update = tdx_arena_printf(&t->arena, "%s = tl.%s(%s, %.*s)", name, combine[d->update], name,
                                       (int)xl, x);
        out->final = tdx_arena_printf(&t->arena, "%s%s = tl.%s(%s, tl.%s(%s%s))", ind, d->acc,
                                      combine[d->update], d->acc, fold[d->update], name, axis);
    }
    return out->init && out->update && out->final ? TDX_OK : TDX_ERR_NOMEM;
}

/* The final reduction goes on a line of its own right after the loop's last
 * line (after a comment on it, before blank lines and what follows). */
static void insert_after(fam_task *t, fam_edits *e, const tdx_src_node *loop, const char *line)
{
    const char *nl = memchr(t->src + loop->end, '\n', t->len - loop->end);
    if (nl)
        fam_edit(t, e, (size_t)(nl - t->src) + 1, (size_t)(nl - t->src) + 1,
                 tdx_arena_printf(&t->arena, "%s\n", line));
    else
        fam_edit(t, e, t->len, t->len, tdx_arena_printf(&t->arena, "\n%s", line));
}

tdx_status fam_defer_reduction(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    const tdx_km_file *f = fam_model(t);
    if (!f)
        return TDX_OK;
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < f->kernels.len && !st; i++) {
        const tdx_km_kernel *k = f->kernels.items[i];
        tdx_km_deferred d[MAX_DEFER];
        deferral p[MAX_DEFER];
        size_t n = tdx_km_deferrable(f, k, d, MAX_DEFER), order[MAX_DEFER];
        int next = 0;
        for (size_t j = 0; j < n && !st; j++) {
            st = plan(t, &d[j], fresh_name(t, k->def, &next), &p[j]);
            order[j] = j;
        }
        if (st || !n)
            continue;
        /* two loops that end on one line are nested: the inner one (which
         * starts later) closes first; insertions at one offset keep their
         * order, and each loop's lines keep the statements' order */
        for (size_t j = 1; j < n; j++)
            for (size_t q = j; q > 0 && d[order[q]].loop->start > d[order[q - 1]].loop->start; q--) {
                size_t tmp = order[q];
                order[q] = order[q - 1];
                order[q - 1] = tmp;
            }
        fam_edits e = {0};
        /* final lines first: one may land where the next loop's init goes */
        for (size_t j = 0; j < n; j++)
            insert_after(t, &e, d[order[j]].loop, p[order[j]].final);
        for (size_t j = 0; j < n; j++) {
            size_t ls = fam_line_start(t, d[j].loop->start);
            fam_edit(t, &e, ls, ls, p[j].init);
            fam_edit(t, &e, d[j].stmt->start, d[j].stmt->end, p[j].update);
        }
        char sum[256];
        snprintf(sum, sizeof sum,
                 "%s: %zu reduction%s of each loop tile kept in an elementwise fp32 accumulator, reduced once "
                 "after the loop",
                 k->name, n, n == 1 ? "" : "s");
        st = fam_emit(t, &e, emit, ud, "defer-reduction", sum);
    }
    return st;
}
