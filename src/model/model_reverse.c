/* Passes that read again, in the same order, what an earlier pass read.
 *
 *     for start in range(0, n_cols, BLOCK):      # the statistics
 *         x = tl.load(x_row + start + tl.arange(0, BLOCK), ...)
 *         ...
 *     for start in range(0, n_cols, BLOCK):      # the write pass
 *         x = tl.load(x_row + start + tl.arange(0, BLOCK), ...)
 *         tl.store(y_row + ..., f(x), ...)
 *
 * When a program's range is larger than its share of L2, the second pass
 * finds the first blocks evicted: the first pass read them longest ago.
 * Walked from its last block down, the second pass reads first what the
 * first pass read last. That is only the same computation when the pass's
 * iterations are independent: every name its body binds is bound in the
 * iteration before it is read, and read nowhere after the loop. */
#include <string.h>

#include "model/model_ctx.h"
#include "model/model_int.h"

/* The names a statement reads (an augmented assignment's target too). */
static void reads_of(tdx_src_node *s, tdx_km_names *out)
{
    tdx_src_walk(s, tdx_km_read_visit, out);
    if (s->kind == TDX_SRC_AUGASSIGN) {
        const tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET);
        if (tdx_src_is_name(tg, NULL))
            tdx_km_names_add(out, tg->name);
    }
}

/* Non-zero when no iteration of loop L reads what another wrote: each name
 * its body binds is bound earlier in the iteration than any read of it, and
 * no statement of def after L reads it. */
static int independent(tdx_src_node *def, tdx_src_node *L)
{
    tdx_km_names inner = {0}, done = {0};
    const tdx_src_node *v = tdx_src_kid(L, TDX_SRC_R_TARGET);
    for (tdx_src_node *s = tdx_src_next(L, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(L, TDX_SRC_R_BODY, s))
        tdx_src_walk(s, tdx_km_bound_visit, &inner);
    if (inner.full)
        return 0;
    tdx_km_names_add(&done, v->name);
    for (tdx_src_node *s = tdx_src_next(L, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(L, TDX_SRC_R_BODY, s)) {
        tdx_km_names r = {0};
        reads_of(s, &r);
        if (r.full)
            return 0;
        for (size_t i = 0; i < r.n; i++)
            if (tdx_km_names_has(&inner, r.v[i]) && !tdx_km_names_has(&done, r.v[i]))
                return 0; /* carried from the iteration before */
        tdx_src_walk(s, tdx_km_bound_visit, &done);
        if (done.full)
            return 0; /* a full set would count every name as bound already */
    }
    int after = 0;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, L); s; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        tdx_km_names r = {0};
        reads_of(s, &r);
        after |= r.full;
        for (size_t i = 0; i < r.n && !after; i++)
            after = tdx_km_names_has(&inner, r.v[i]);
    }
    return !after;
}

/* The iterator of a loop `for V in range(...)` / tl.range(...) with one to
 * three positional arguments, or NULL. */
static const tdx_src_node *range_of(const tdx_src_node *L)
{
    const tdx_src_node *it = tdx_src_kid(L, TDX_SRC_R_ITER), *v = tdx_src_kid(L, TDX_SRC_R_TARGET);
    if (!tdx_src_is_name(v, NULL) || !it || it->kind != TDX_SRC_CALL ||
        !(tdx_src_is_dotted(tdx_src_call_func(it), "range") || tdx_src_is_dotted(tdx_src_call_func(it), "tl.range")))
        return NULL;
    size_t n = tdx_src_call_nargs(it);
    if (n < 1 || n > 3 || tdx_src_next(it, TDX_SRC_R_KEYWORD, NULL))
        return NULL;
    return it;
}

static int same_range(const tdx_src_module *m, const tdx_src_node *a, const tdx_src_node *b)
{
    size_t n = tdx_src_call_nargs(a);
    if (n != tdx_src_call_nargs(b))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!tdx_src_same_text(m, tdx_src_call_arg(a, i), tdx_src_call_arg(b, i)))
            return 0;
    return 1;
}

/* The names the pointer argument of each tl.load under a statement reads. */
static int load_visit(tdx_src_node *n, void *ud)
{
    if (n->kind != TDX_SRC_CALL || !tdx_src_is_dotted(tdx_src_call_func(n), "tl.load"))
        return 0;
    tdx_src_node *p = tdx_src_call_arg(n, 0);
    if (!p)
        p = tdx_src_call_kwarg(n, "pointer");
    if (p)
        tdx_src_walk(p, tdx_km_read_visit, ud);
    return 0;
}

/* The names loop L loads through that it does not bind itself: the bases
 * of its loads (x_ptr, or x_row = x_ptr + row * n bound before it). */
static void load_bases(tdx_src_node *L, tdx_km_names *out)
{
    tdx_km_names r = {0}, bound = {0};
    tdx_src_walk(L, load_visit, &r);
    tdx_src_walk(L, tdx_km_bound_visit, &bound);
    for (size_t i = 0; i < r.n; i++)
        if (!tdx_km_names_has(&bound, r.v[i]))
            tdx_km_names_add(out, r.v[i]);
}

/* A base both loops load through (a kernel parameter first), or NULL. */
static const char *shared_base(const tdx_src_node *def, tdx_src_node *a, tdx_src_node *b)
{
    tdx_km_names la = {0}, lb = {0};
    load_bases(a, &la);
    load_bases(b, &lb);
    const char *any = NULL;
    for (size_t i = 0; i < la.n; i++)
        for (size_t j = 0; j < lb.n; j++)
            if (strcmp(la.v[i], lb.v[j]) == 0) {
                if (tdx_src_param(def, la.v[i]))
                    return la.v[i];
                if (!any)
                    any = la.v[i];
            }
    return any;
}

size_t tdx_km_reversible(const tdx_src_module *m, const tdx_src_node *def, tdx_km_rev *out, size_t max)
{
    size_t n = 0;
    tdx_src_node *loops[32];
    size_t nl = 0;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s && nl < 32; s = tdx_src_next(def, TDX_SRC_R_BODY, s))
        if (s->kind == TDX_SRC_FOR && range_of(s))
            loops[nl++] = s;
    for (size_t j = nl; j-- > 1 && n < max;) {
        tdx_src_node *L = loops[j];
        int later = 0; /* a later pass of the same range reads it again: that one is the last */
        for (size_t k = j + 1; k < nl && !later; k++)
            later = same_range(m, range_of(L), range_of(loops[k])) && shared_base(def, L, loops[k]);
        if (later || !independent((tdx_src_node *)def, L))
            continue;
        for (size_t i = 0; i < j; i++) {
            const char *base = same_range(m, range_of(loops[i]), range_of(L)) ? shared_base(def, loops[i], L) : NULL;
            if (!base)
                continue;
            const tdx_src_node *it = range_of(L);
            size_t na = tdx_src_call_nargs(it);
            tdx_km_rev *r = &out[n++];
            memset(r, 0, sizeof *r);
            r->loop = L;
            r->first = loops[i];
            r->var = tdx_src_kid(L, TDX_SRC_R_TARGET)->name;
            r->base = base;
            r->lo = na >= 2 ? tdx_src_call_arg(it, 0) : NULL;
            r->hi = tdx_src_call_arg(it, na >= 2 ? 1 : 0);
            r->step = na == 3 ? tdx_src_call_arg(it, 2) : NULL;
            break;
        }
    }
    return n;
}
