/* peel-masks: a loop over blocks whose masks only its last blocks need
 * (tdx_km_peelable, model_peel.c; rule TDX022) runs in two loops,
 *
 *     _tdx_full = tl.maximum(tl.minimum(tl.minimum(hi, S), pid_m * BLOCK_M), 0) // BLOCK_N * BLOCK_N
 *     for start_n in range(0, _tdx_full, BLOCK_N):
 *         ... the body with those masks dropped: tl.load(p) for
 *             tl.load(p, mask=m, other=0.0), qk for tl.where(m, qk, -inf)
 *     for start_n in range(_tdx_full, hi, BLOCK_N):
 *         ... the body as it was
 *
 * (with a start lo other than 0: lo + tl.maximum(... - lo, 0) // step *
 * step, so that the second loop's blocks start where the original's did).
 * Every block of the first loop ends at or before each bound, where the
 * masks are true: the same values are computed without the compares, the
 * selects and the predicated loads. Flash attention's forward kernels
 * split their key loop so (off-diagonal blocks, then the diagonal). One
 * candidate per kernel peels every such loop not inside another one. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/edit.h"
#include "rewrite/fam_common.h"

enum { MAX_PEEL = 8, MAX_LOCAL = 3 * TDX_KM_PEEL_MAX_SITES + 1 };

static char *fresh_name(fam_task *t, const tdx_src_node *def, int *next)
{
    for (;; (*next)++) {
        char *nm = *next ? tdx_arena_printf(&t->arena, "_tdx_full%d", *next) : "_tdx_full";
        if (!nm || !fam_mentions(def, nm)) {
            (*next)++;
            return nm;
        }
    }
}

/* Remove keyword kw of a call with the comma before it: [comma, kw end). */
static int drop_kwarg(fam_task *t, const tdx_src_node *kw, size_t base, tdx_rw_edit *e)
{
    size_t p = kw->start;
    while (p > 0 && (t->src[p - 1] == ' ' || t->src[p - 1] == '\t' || t->src[p - 1] == '\n'))
        p--;
    if (p == 0 || t->src[p - 1] != ',')
        return 0;
    e->start = p - 1 - base;
    e->end = kw->end - base;
    e->text = "";
    return 1;
}

/* The keyword node `name=` of call, or NULL. */
static const tdx_src_node *kwarg_node(const tdx_src_node *call, const char *name)
{
    for (tdx_src_node *k = tdx_src_next(call, TDX_SRC_R_KEYWORD, NULL); k; k = tdx_src_next(call, TDX_SRC_R_KEYWORD, k))
        if (k->name && strcmp(k->name, name) == 0)
            return k;
    return NULL;
}

/* The loop's lines [start of its line, end) with the masks dropped and its
 * stop replaced by full; NULL when the edits do not apply. */
static char *unmasked_copy(fam_task *t, const tdx_km_peel *p, const char *full)
{
    size_t base = fam_line_start(t, p->loop->start);
    tdx_rw_edit e[MAX_LOCAL];
    size_t n = 0;
    e[n].start = p->hi->start - base;
    e[n].end = p->hi->end - base;
    e[n++].text = full;
    for (size_t i = 0; i < p->nsite; i++) {
        const tdx_src_node *c = p->site[i];
        const tdx_src_node *fn = tdx_src_call_func(c);
        int nested = 0; /* inside another site: that one's edit copies it as it is */
        for (size_t j = 0; j < p->nsite && !nested; j++)
            nested = j != i && p->site[j]->start <= c->start && c->end <= p->site[j]->end;
        if (nested)
            continue;
        if (tdx_src_call_nargs(c) == 3 && !kwarg_node(c, "mask")) { /* tl.where(m, a, b) -> (a) */
            const tdx_src_node *a = tdx_src_call_arg(c, 1), *st = c->parent, *tg;
            size_t al, tl;
            const char *at = tdx_src_text(t->m, a, &al);
            if (c->role == TDX_SRC_R_VALUE && st && st->kind == TDX_SRC_ASSIGN &&
                tdx_src_count(st, TDX_SRC_R_TARGET) == 1 && (tg = tdx_src_kid(st, TDX_SRC_R_TARGET)) &&
                tdx_src_text(t->m, tg, &tl) && tl == al && memcmp(tdx_src_text(t->m, tg, &tl), at, al) == 0) {
                /* `x = tl.where(m, x, y)` becomes nothing: its whole line goes */
                size_t ls = fam_line_start(t, st->start);
                const char *nl = memchr(t->src + st->end, '\n', t->len - st->end);
                e[n].start = ls - base;
                e[n].end = nl ? (size_t)(nl - t->src) + 1 - base : st->end - base;
                e[n++].text = "";
                continue;
            }
            e[n].start = c->start - base;
            e[n].end = c->end - base;
            e[n++].text = fam_operand(t, tdx_src_call_arg(c, 1));
            continue;
        }
        const tdx_src_node *mk = kwarg_node(c, "mask"), *ot = kwarg_node(c, "other");
        if (!mk || !fn || !drop_kwarg(t, mk, base, &e[n++]))
            return NULL;
        if (ot && !drop_kwarg(t, ot, base, &e[n++]))
            return NULL;
    }
    tdx_buf b;
    tdx_buf_init(&b, 16u << 20);
    char *r = NULL;
    if (tdx_rw_apply(t->src + base, p->loop->end - base, e, n, &b) == TDX_OK)
        r = tdx_arena_strdup(&t->arena, tdx_buf_str(&b));
    tdx_buf_free(&b);
    return r;
}

/* `_tdx_full = ...` for loop p, indented as the loop. */
static char *full_line(fam_task *t, const tdx_km_peel *p, const char *full)
{
    size_t ls = fam_line_start(t, p->loop->start);
    char *m = fam_operand(t, p->hi);
    size_t hl;
    const char *ht = tdx_src_text(t->m, p->hi, &hl);
    for (size_t i = 0; i < p->nbound && m; i++) {
        size_t bl;
        const char *bt = tdx_src_text(t->m, p->bound[i], &bl);
        if (bl != hl || memcmp(bt, ht, hl) != 0) /* the loop stops there anyway */
            m = tdx_arena_printf(&t->arena, "tl.minimum(%s, %s)", m, fam_operand(t, p->bound[i]));
    }
    char *step = fam_operand(t, p->step);
    long long lo = -1;
    int zero = p->lo->kind == TDX_SRC_NUMBER && tdx_src_int_value(t->m, p->lo, &lo) == TDX_OK && lo == 0;
    if (!m || !step)
        return NULL;
    if (zero)
        return tdx_arena_printf(&t->arena, "%.*s%s = tl.maximum(%s, 0) // %s * %s\n", (int)(p->loop->start - ls),
                                t->src + ls, full, m, step, step);
    char *l = fam_operand(t, p->lo);
    return tdx_arena_printf(&t->arena, "%.*s%s = %s + tl.maximum(%s - %s, 0) // %s * %s\n",
                            (int)(p->loop->start - ls), t->src + ls, full, l, m, l, step, step);
}

tdx_status fam_peel_masks(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        tdx_src_node *def = t->kernels.items[k];
        tdx_km_peel p[MAX_PEEL];
        size_t n = tdx_km_peelable(t->m, def, p, MAX_PEEL);
        fam_edits e = {0};
        int next = 0, loops = 0, sites = 0, diag = 0;
        for (size_t i = 0; i < n; i++) {
            int inner = 0;
            for (size_t j = 0; j < n && !inner; j++)
                inner = j != i && p[j].loop->start <= p[i].loop->start && p[i].loop->end <= p[j].loop->end;
            if (inner)
                continue;
            char *full = fresh_name(t, def, &next);
            char *line = full ? full_line(t, &p[i], full) : NULL;
            char *copy = full ? unmasked_copy(t, &p[i], full) : NULL;
            if (!line || !copy)
                continue;
            size_t ls = fam_line_start(t, p[i].loop->start);
            fam_edit(t, &e, ls, ls, tdx_arena_printf(&t->arena, "%s%s\n", line, copy));
            fam_edit(t, &e, p[i].lo->start, p[i].lo->end, full);
            loops++;
            sites += (int)p[i].nsite;
            diag |= p[i].diagonal;
        }
        if (!loops)
            continue;
        char sum[256];
        snprintf(sum, sizeof sum, "%s: %d loop%s split at the first block that needs a mask%s; %d mask%s dropped "
                 "before it",
                 def->name ? def->name : "kernel", loops, loops == 1 ? "" : "s",
                 diag ? " (the diagonal)" : "", sites, sites == 1 ? "" : "s");
        st = fam_emit(t, &e, emit, ud, "peel-masks", sum);
    }
    return st;
}
