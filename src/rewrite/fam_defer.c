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
 * The online maximum and sum of exponentials (tdx_km_online_sums),
 *
 *     m_new = tl.maximum(m, tl.max(x, axis=0))
 *     s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
 *     m = m_new
 *
 * reduces twice an iteration. Each lane keeps its own maximum and its own
 * sum, rescaled when its own maximum grows (the rescale factor as written,
 * m read as the lane's maximum), and the lanes are combined after the loop:
 *
 *     _tdx_r0 = tl.full([BLOCK], float("-inf"), tl.float32)
 *     _tdx_r1 = tl.zeros([BLOCK], dtype=tl.float32)
 *     for ...:
 *         m_new = tl.maximum(_tdx_r0, x)
 *         _tdx_r1 = tl.where(m_new > float("-inf"), _tdx_r1 * tl.exp(_tdx_r0 - m_new) + tl.exp(x - m_new), 0.0)
 *         _tdx_r0 = m_new
 *     m = tl.max(_tdx_r0, axis=0)
 *     s = tl.sum(tl.where(_tdx_r0 > float("-inf"), _tdx_r1 * tl.exp(_tdx_r0 - m), 0.0), axis=0)
 *
 * A lane that has seen only -inf (masked lanes, masked-out logits) keeps a
 * sum of 0: exp(-inf - -inf) is NaN, and the tl.where keeps it out. The
 * scalars start at -inf and 0, so the combined values replace them.
 * One candidate per kernel rewrites all of them. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

enum { MAX_DEFER = 12, MAX_ONLINE = 4 }; /* three edits a deferral, five an online loop: within fam_edits' 64 */

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

/* ---- online maximum and sum (tdx_km_online_sums) ------------------------ */

enum { MAX_SWAPS = 32 };

typedef struct renames {
    const char *from[2], *to[2];
    const tdx_src_node *hit[MAX_SWAPS];
    int which[MAX_SWAPS];
    size_t n;
    int over;
} renames;

static int rename_visit(tdx_src_node *n, void *ud)
{
    renames *r = ud;
    for (int i = 0; i < 2 && n->kind == TDX_SRC_NAME && n->name; i++)
        if (r->from[i] && strcmp(n->name, r->from[i]) == 0) {
            if (r->n == MAX_SWAPS) {
                r->over = 1;
                return -1;
            }
            r->hit[r->n] = n;
            r->which[r->n++] = i;
            break;
        }
    return 0;
}

/* The text of e with the names from[i] written to[i]; in brackets unless
 * it is a name, a call, an attribute, a subscript or a number. NULL when
 * out of memory or when e names them too often. */
static char *renamed(fam_task *t, const tdx_src_node *e, const char *f0, const char *t0, const char *f1,
                     const char *t1)
{
    renames r = {{f0, f1}, {t0, t1}, {0}, {0}, 0, 0};
    tdx_src_walk((tdx_src_node *)e, rename_visit, &r);
    if (r.over)
        return NULL;
    int bare = e->kind == TDX_SRC_NAME || e->kind == TDX_SRC_CALL || e->kind == TDX_SRC_ATTRIBUTE ||
               e->kind == TDX_SRC_SUBSCRIPT || e->kind == TDX_SRC_NUMBER;
    size_t cap = (e->end - e->start) + 3;
    for (size_t i = 0; i < r.n; i++)
        cap += strlen(r.to[r.which[i]]);
    char *out = tdx_arena_alloc(&t->arena, cap), *w = out;
    if (!out)
        return NULL;
    if (!bare)
        *w++ = '(';
    size_t at = e->start;
    for (size_t i = 0; i < r.n; i++) {
        size_t l = strlen(r.to[r.which[i]]);
        memcpy(w, t->src + at, r.hit[i]->start - at);
        w += r.hit[i]->start - at;
        memcpy(w, r.to[r.which[i]], l);
        w += l;
        at = r.hit[i]->end;
    }
    memcpy(w, t->src + at, e->end - at);
    w += e->end - at;
    if (!bare)
        *w++ = ')';
    *w = '\0';
    return out;
}

/* The edits of one online loop: the per-lane maximum (vm) and sum (vs)
 * before it, the three statements made elementwise, the lanes combined
 * after it. */
static tdx_status plan_online(fam_task *t, const tdx_km_online *o, const char *vm, const char *vs, char **init,
                              char **a, char **b, char **c, char **final)
{
    tdx_km_deferred shape = {0};
    shape.rank = o->rank;
    memcpy(shape.shape, o->shape, sizeof o->shape);
    char *sh = shape_text(t, &shape), *ind = indent_of(t, o->loop);
    char *x = renamed(t, o->value, NULL, NULL, NULL, NULL), *y = renamed(t, o->summed, NULL, NULL, NULL, NULL);
    char *f_in = renamed(t, o->rescale, o->m, vm, NULL, NULL);
    char *f_out = renamed(t, o->rescale, o->m, vm, o->m_new, o->m);
    const char *axis = o->rank == 1 ? ", axis=0" : "";
    if (!vm || !vs || !sh || !ind || !x || !y || !f_in || !f_out)
        return TDX_ERR_NOMEM;
    *init = tdx_arena_printf(&t->arena, "%s%s = tl.full(%s, float(\"-inf\"), tl.float32)\n%s%s = tl.zeros(%s, dtype=tl.float32)\n",
                             ind, vm, sh, ind, vs, sh);
    *a = tdx_arena_printf(&t->arena, "%s = tl.maximum(%s, %s)", o->m_new, vm, x);
    *b = tdx_arena_printf(&t->arena, "%s = tl.where(%s > float(\"-inf\"), %s * %s + %s, 0.0)", vs, o->m_new, vs,
                          f_in, y);
    *c = tdx_arena_printf(&t->arena, "%s = %s", vm, o->m_new);
    *final = tdx_arena_printf(&t->arena, "%s%s = tl.max(%s%s)\n%s%s = tl.sum(tl.where(%s > float(\"-inf\"), %s * %s, 0.0)%s)",
                              ind, o->m, vm, axis, ind, o->s, vm, vs, f_out, axis);
    return *init && *a && *b && *c && *final ? TDX_OK : TDX_ERR_NOMEM;
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
        tdx_km_online o[MAX_ONLINE];
        char *on[MAX_ONLINE][5];
        size_t n = tdx_km_deferrable(f, k, d, MAX_DEFER), order[MAX_DEFER];
        size_t no = tdx_km_online_sums(f, k, o, MAX_ONLINE);
        int next = 0;
        for (size_t j = 0; j < n && !st; j++) {
            st = plan(t, &d[j], fresh_name(t, k->def, &next), &p[j]);
            order[j] = j;
        }
        for (size_t j = 0; j < no && !st; j++) {
            char *vm = fresh_name(t, k->def, &next), *vs = fresh_name(t, k->def, &next);
            st = plan_online(t, &o[j], vm, vs, &on[j][0], &on[j][1], &on[j][2], &on[j][3], &on[j][4]);
        }
        if (st || (!n && !no))
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
        for (size_t j = 0; j < no; j++)
            insert_after(t, &e, o[j].loop, on[j][4]);
        for (size_t j = 0; j < n; j++) {
            size_t ls = fam_line_start(t, d[j].loop->start);
            fam_edit(t, &e, ls, ls, p[j].init);
            fam_edit(t, &e, d[j].stmt->start, d[j].stmt->end, p[j].update);
        }
        for (size_t j = 0; j < no; j++) {
            size_t ls = fam_line_start(t, o[j].loop->start);
            fam_edit(t, &e, ls, ls, on[j][0]);
            fam_edit(t, &e, o[j].max_stmt->start, o[j].max_stmt->end, on[j][1]);
            fam_edit(t, &e, o[j].sum_stmt->start, o[j].sum_stmt->end, on[j][2]);
            fam_edit(t, &e, o[j].move_stmt->start, o[j].move_stmt->end, on[j][3]);
        }
        char sum[256];
        if (!no)
            snprintf(sum, sizeof sum,
                     "%s: %zu reduction%s of each loop tile kept in an elementwise fp32 accumulator, reduced once "
                     "after the loop",
                     k->name, n, n == 1 ? "" : "s");
        else
            snprintf(sum, sizeof sum,
                     "%s: %zu running maximum%s and sum%s of exponentials kept per lane%s, combined once after the "
                     "loop",
                     k->name, no, no == 1 ? "" : "s", no == 1 ? "" : "s",
                     n ? " and the other loop reductions in elementwise accumulators" : "");
        st = fam_emit(t, &e, emit, ud, "defer-reduction", sum);
    }
    return st;
}
