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
 * ones rule TDX021 reports.
 *
 * A maximum or minimum of values loaded and widened to fp32 (`x.to(tl.float32)`,
 * x = tl.load(p_ptr + ...) in the loop: tdx_km_deferred.widened) keeps its
 * lanes in the loaded type instead, p_ptr.dtype.element_ty, widened once
 * after the loop: a
 * conversion rounds monotonically, so the maximum of the widened values
 * is the widened maximum, exactly, and fp16 / bf16 lanes take half the
 * registers and one packed instruction for two (col_max_fp16's loop: 107
 * sm_90 SASS instructions a step, 59 so; 0.938 of its time on the H200). A
 * static assertion keeps an integer pointer out (its -inf would not exist).
 * The lanes start as an fp32 tile converted once (Triton's interpreter
 * builds no bf16 constant).
 *
 * A running arg-max (tdx_km_argdeferrable) pays two reductions an
 * iteration, tl.max and tl.argmax. Per lane, the best value and the index
 * where it first came take their place -- Inductor's looped argmax:
 *
 *     _tdx_r0 = tl.full([BLOCK], float("-inf"), tl.float32)
 *     _tdx_r1 = tl.full([BLOCK], 2147483647, tl.int32)
 *     for start in range(0, n, BLOCK):
 *         _tdx_r2 = x > _tdx_r0
 *         _tdx_r1 = tl.where(_tdx_r2, start + tl.arange(0, BLOCK), _tdx_r1)
 *         _tdx_r0 = tl.where(_tdx_r2, x, _tdx_r0)
 *     _tdx_r3 = tl.max(_tdx_r0, axis=0)
 *     best_idx = tl.where(_tdx_r3 > best, tl.min(tl.where(_tdx_r0 == _tdx_r3, _tdx_r1, 2147483647), axis=0), best_idx)
 *     best = tl.maximum(_tdx_r3, best)
 *
 * Strictly greater keeps the index where each lane first reached its best,
 * as the indices grow with the loop; the smallest of those among the lanes
 * that hold the maximum is the maximum's first index in the row, the one
 * tl.argmax and the strict pick chose. The last two lines are the loop's
 * own update, applied once. A lane that never rose above -inf keeps the
 * sentinel index; it holds the maximum only when every lane does, and then
 * `_tdx_r3 > best` fails and best_idx stays, as in the loop. Values of 32
 * bits or less compare exactly in fp32, and tl.max gives fp32 for them
 * too, so best keeps its type; a static assertion rejects an integer tile,
 * which fp32 would round.
 *
 * One candidate per kernel rewrites all of them. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

/* three edits each and six each, within fam_edits' 64 */
enum { MAX_DEFER = 16, MAX_ARGDEFER = 2 };

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

/* One deferral: its accumulators' lines before the loop and the one
 * reduction's lines after it. */
typedef struct deferral {
    const tdx_src_node *loop;
    size_t at; /* where it updates in the loop: the order of one loop's final lines */
    char *init, *final;
} deferral;

/* A sum, maximum or minimum: the block accumulator's line before the loop,
 * the elementwise update in place of the statement (*update), the one
 * reduction's line after the loop. */
static tdx_status plan(fam_task *t, const tdx_km_deferred *d, char *name, deferral *out, char **update,
                       int *narrowed)
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
    out->loop = d->loop;
    out->at = d->stmt->start;
    if (!shape || !ind || !name || !axis)
        return TDX_ERR_NOMEM;
    if (d->update == TDX_KM_UPDATE_SUM) {
        out->init = tdx_arena_printf(&t->arena, "%s%s = tl.zeros(%s, dtype=tl.float32)\n", ind, name, shape);
        *update = tdx_arena_printf(&t->arena, "%s += %s%.*s%s", name, paren ? "(" : "", (int)xl, x, paren ? ")" : "");
        out->final = tdx_arena_printf(&t->arena, "%s%s += tl.sum(%s%s)", ind, d->acc, name, axis);
    } else if (d->widened) {
        int mx = d->update == TDX_KM_UPDATE_MAX;
        const char *p = d->widened_base;
        out->init = tdx_arena_printf(&t->arena,
                                     "%stl.static_assert(%s.dtype.element_ty.is_floating())\n"
                                     "%s%s = tl.full(%s, float(\"%s\"), tl.float32).to(%s.dtype.element_ty)\n",
                                     ind, p, ind, name, shape, mx ? "-inf" : "inf", p);
        *update = tdx_arena_printf(&t->arena, "%s = tl.%s(%s, %s)", name, combine[d->update], name, d->widened);
        out->final = tdx_arena_printf(&t->arena, "%s%s = tl.%s(%s, tl.%s(%s%s).to(tl.float32))", ind, d->acc,
                                      combine[d->update], d->acc, fold[d->update], name, axis);
        (*narrowed)++;
    } else {
        int mx = d->update == TDX_KM_UPDATE_MAX;
        out->init = tdx_arena_printf(&t->arena, "%s%s = tl.full(%s, float(\"%s\"), tl.float32)\n", ind, name,
                                     shape, mx ? "-inf" : "inf");
        *update = tdx_arena_printf(&t->arena, "%s = tl.%s(%s, %.*s)", name, combine[d->update], name, (int)xl, x);
        out->final = tdx_arena_printf(&t->arena, "%s%s = tl.%s(%s, tl.%s(%s%s))", ind, d->acc, combine[d->update],
                                      d->acc, fold[d->update], name, axis);
    }
    return out->init && *update && out->final ? TDX_OK : TDX_ERR_NOMEM;
}

/* A running arg-max or arg-min: the value and index accumulators before the
 * loop, the per-lane pick in place of the where (*update; the reductions
 * and the fold go), the reduction of the lanes and the loop's own update
 * after it. */
static tdx_status plan_arg(fam_task *t, const tdx_km_argdeferred *a, const tdx_src_node *def, int *next,
                           deferral *out, char **update)
{
    char *val = fresh_name(t, def, next), *idx = fresh_name(t, def, next);
    char *hit = fresh_name(t, def, next), *top = fresh_name(t, def, next);
    char *ind = indent_of(t, a->loop), *in = indent_of(t, a->pick);
    size_t sl;
    const char *s = tdx_src_text(t->m, a->size, &sl);
    const char *lane = a->index ? a->index : tdx_arena_printf(&t->arena, "%s + tl.arange(0, %.*s)", a->var, (int)sl, s);
    const char *cmp = a->is_min ? "<" : ">", *red = a->is_min ? "min" : "max";
    const char *fold = a->is_min ? "minimum" : "maximum";
    out->loop = a->loop;
    out->at = a->pick->start;
    if (!val || !idx || !hit || !top || !ind || !in || !lane)
        return TDX_ERR_NOMEM;
    out->init = tdx_arena_printf(&t->arena,
                                 "%s%s = tl.full([%.*s], float(\"%s\"), tl.float32)\n"
                                 "%s%s = tl.full([%.*s], 2147483647, tl.int32)\n",
                                 ind, val, (int)sl, s, a->is_min ? "inf" : "-inf", ind, idx, (int)sl, s);
    *update = tdx_arena_printf(&t->arena,
                               "%s = %s %s %s\n"
                               "%s%s = tl.where(%s, %s, %s)\n"
                               "%s%s = tl.where(%s, %s, %s)\n"
                               "%stl.static_assert(%s.dtype.is_floating())",
                               hit, a->x, cmp, val, in, idx, hit, lane, idx, in, val, hit, a->x, val, in, a->x);
    out->final = tdx_arena_printf(&t->arena,
                                  "%s%s = tl.%s(%s, axis=0)\n"
                                  "%s%s = tl.where(%s %s %s, tl.min(tl.where(%s == %s, %s, 2147483647), axis=0), %s)\n"
                                  "%s%s = tl.%s(%s, %s)",
                                  ind, top, red, val, ind, a->best_idx, top, cmp, a->best, val, top, idx,
                                  a->best_idx, ind, a->best, fold, top, a->best);
    return out->init && *update && out->final ? TDX_OK : TDX_ERR_NOMEM;
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

/* Remove the lines of statement s, which has them to itself. */
static void drop_lines(fam_task *t, fam_edits *e, const tdx_src_node *s)
{
    const char *nl = memchr(t->src + s->end, '\n', t->len - s->end);
    fam_edit(t, e, fam_line_start(t, s->start), nl ? (size_t)(nl - t->src) + 1 : t->len, "");
}

/* "row_sum_kernel: 1 reduction of each loop tile ...": what the candidate
 * does to kernel k, into buf. */
static void summarize(char *buf, size_t cap, const char *k, size_t n, int narrowed, const tdx_km_argdeferred *a,
                      size_t na)
{
    size_t mins = 0;
    for (size_t j = 0; j < na; j++)
        mins += (size_t)a[j].is_min;
    const char *arg = mins == 0 ? "arg-max" : mins == na ? "arg-min" : "arg-max / arg-min";
    char red[192] = "", run[160] = "";
    if (n && narrowed)
        snprintf(red, sizeof red,
                 "%zu reduction%s of each loop tile kept in an elementwise accumulator (%d in the loaded type, "
                 "exact for a maximum or minimum)",
                 n, n == 1 ? "" : "s", narrowed);
    else if (n)
        snprintf(red, sizeof red, "%zu reduction%s of each loop tile kept in an elementwise fp32 accumulator", n,
                 n == 1 ? "" : "s");
    if (na)
        snprintf(run, sizeof run, "%zu running %s kept per lane (the best value and the index where it came first)",
                 na, arg);
    snprintf(buf, cap, "%s: %s%s%s, reduced once after the loop", k, red, n && na ? " and " : "", run);
}

/* Sort order[0, n) of p so that final lines at one offset come in the
 * right order: two loops that end on one line are nested, and the inner one
 * (which starts later) closes first; within one loop, the statements'
 * order. */
static void sort_finals(const deferral *p, size_t *order, size_t n)
{
    for (size_t j = 0; j < n; j++)
        order[j] = j;
    for (size_t j = 1; j < n; j++)
        for (size_t q = j; q > 0; q--) {
            const deferral *a = &p[order[q]], *b = &p[order[q - 1]];
            if (a->loop->start < b->loop->start || (a->loop == b->loop && a->at >= b->at))
                break;
            size_t tmp = order[q];
            order[q] = order[q - 1];
            order[q - 1] = tmp;
        }
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
        tdx_km_argdeferred a[MAX_ARGDEFER];
        deferral p[MAX_DEFER + MAX_ARGDEFER];
        char *update[MAX_DEFER + MAX_ARGDEFER];
        size_t n = tdx_km_deferrable(f, k, d, MAX_DEFER), na = tdx_km_argdeferrable(f, k, a, MAX_ARGDEFER);
        size_t order[MAX_DEFER + MAX_ARGDEFER];
        int next = 0, narrowed = 0;
        for (size_t j = 0; j < n && !st; j++)
            st = plan(t, &d[j], fresh_name(t, k->def, &next), &p[j], &update[j], &narrowed);
        for (size_t j = 0; j < na && !st; j++)
            st = plan_arg(t, &a[j], k->def, &next, &p[n + j], &update[n + j]);
        if (st || !(n + na))
            continue;
        sort_finals(p, order, n + na);
        fam_edits e = {0};
        /* final lines first: one may land where the next loop's init goes */
        for (size_t j = 0; j < n + na; j++)
            insert_after(t, &e, p[order[j]].loop, p[order[j]].final);
        for (size_t j = 0; j < n + na; j++) {
            size_t ls = fam_line_start(t, p[j].loop->start);
            fam_edit(t, &e, ls, ls, p[j].init);
        }
        for (size_t j = 0; j < n; j++)
            fam_edit(t, &e, d[j].stmt->start, d[j].stmt->end, update[j]);
        for (size_t j = 0; j < na; j++) {
            fam_edit(t, &e, a[j].pick->start, a[j].pick->end, update[n + j]);
            drop_lines(t, &e, a[j].red);
            drop_lines(t, &e, a[j].arg);
            drop_lines(t, &e, a[j].fold);
        }
        char sum[384];
        summarize(sum, sizeof sum, k->name, n, narrowed, a, na);
        st = fam_emit(t, &e, emit, ud, "defer-reduction", sum);
    }
    return st;
}
