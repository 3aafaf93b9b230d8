/* Atomics that order memory though nothing reads what they order.
 *
 * tl.atomic_add (and max, min, and, or, xor) defaults to sem="acq_rel". On
 * sm_90 each such atomic becomes an ATOMG that returns the old value, a
 * MEMBAR.ALL.GPU and a CCTL.IVALL (an L1 invalidate) -- checked in the SASS
 * of an AOT compile of a scatter-add loop -- while sem="relaxed" with the
 * result unused becomes a REDG, a reduction the SM issues and forgets. A
 * kernel that only accumulates into memory another launch reads (a
 * scatter-add, a histogram, partial sums) needs the atomicity, not the
 * ordering.
 *
 * A call is reported when it is a statement of its own (its result unused),
 * names no sem= (nor scope=), and its kernel has no atomic_cas /
 * atomic_xchg (locks, flags), no atomic whose result is used (a ticket, a
 * last-program test), no tl.load from a pointer parameter an atomic writes
 * through, and calls no helper function (whose atomics and loads are not
 * seen). Rule TDX023 reports them, the relax-atomics family adds
 * sem="relaxed". */
#include <string.h>

#include "model/model_ctx.h"
#include "model/model_int.h"

static const char *const accumulating[] = {"atomic_add", "atomic_max", "atomic_min", "atomic_and",
                                           "atomic_or", "atomic_xor", NULL};

static int in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; s && list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

typedef struct scan {
    const tdx_src_node *def;
    const tdx_src_node *site[TDX_KM_ATOMIC_MAX];
    size_t nsite;
    const char *wrote[16]; /* the parameters atomics write through */
    size_t nwrote;
    int bad;               /* cas / xchg, a used result, too many */
} scan;

/* The kernel parameters named in pointer expression e. */
typedef struct params {
    const tdx_src_node *def;
    const char **v;
    size_t *n, cap;
    int full;
} params;

static int param_visit(tdx_src_node *n, void *ud)
{
    params *p = ud;
    if (n->kind != TDX_SRC_NAME || !n->name || !tdx_src_param(p->def, n->name))
        return 0;
    for (size_t i = 0; i < *p->n; i++)
        if (strcmp(p->v[i], n->name) == 0)
            return 0;
    if (*p->n < p->cap)
        p->v[(*p->n)++] = n->name;
    else
        p->full = 1;
    return 0;
}

/* The kernel parameters among the additive leaves of pointer expression e
 * (`out_ptr + row * D + offs`: out_ptr -- a pointer is one of the terms
 * added, not a factor); all the parameters named in e when none is. */
static void pointer_params(const tdx_src_node *e, params *p, int depth)
{
    if (!e || depth > 64) {
        p->full = 1;
        return;
    }
    if (e->kind == TDX_SRC_BINOP && e->op == TDX_OP_PLUS) {
        pointer_params(tdx_src_kid(e, TDX_SRC_R_LEFT), p, depth + 1);
        pointer_params(tdx_src_kid(e, TDX_SRC_R_RIGHT), p, depth + 1);
    } else if (e->kind == TDX_SRC_NAME) {
        param_visit((tdx_src_node *)e, p);
    }
}

static void bases_of(const tdx_src_node *e, params *p)
{
    size_t before = *p->n;
    pointer_params(e, p, 0);
    if (*p->n == before && e)
        tdx_src_walk((tdx_src_node *)e, param_visit, p);
}

static const tdx_src_node *pointer_arg(const tdx_src_node *call)
{
    const tdx_src_node *p = tdx_src_call_arg(call, 0);
    return p ? p : tdx_src_call_kwarg(call, "pointer");
}

static const char *const builtins[] = {"range", "min", "max", "abs", "float", "int", "len", "print", NULL};

static int atomic_visit(tdx_src_node *n, void *ud)
{
    scan *s = ud;
    if (n->kind != TDX_SRC_CALL)
        return 0;
    const tdx_src_node *f = tdx_src_call_func(n);
    if (f && f->kind == TDX_SRC_NAME && !in_list(f->name, builtins)) {
        s->bad = 1; /* a helper: its atomics and loads are not seen here */
        return -1;
    }
    const char *fn = tdx_km_tl_name(f);
    if (!fn || strncmp(fn, "atomic_", 7) != 0)
        return 0;
    if (!in_list(fn, accumulating) || !n->parent || n->parent->kind != TDX_SRC_EXPR_STMT) {
        s->bad = 1; /* cas / xchg, or a result someone reads */
        return -1;
    }
    const tdx_src_node *ptr = pointer_arg(n);
    size_t nw = s->nwrote;
    params p = {s->def, s->wrote, &nw, sizeof s->wrote / sizeof s->wrote[0], 0};
    if (!ptr || s->nsite >= TDX_KM_ATOMIC_MAX) {
        s->bad = 1;
        return -1;
    }
    bases_of(ptr, &p);
    s->nwrote = nw;
    if (p.full) {
        s->bad = 1;
        return -1;
    }
    if (!tdx_src_call_kwarg(n, "sem") && !tdx_src_call_kwarg(n, "scope"))
        s->site[s->nsite++] = n;
    return 0;
}

typedef struct reads {
    const scan *s;
    int hit;
} reads;

static int load_visit(tdx_src_node *n, void *ud)
{
    reads *r = ud;
    if (n->kind != TDX_SRC_CALL)
        return 0;
    const char *fn = tdx_km_tl_name(tdx_src_call_func(n));
    if (!fn || strcmp(fn, "load") != 0)
        return 0;
    const tdx_src_node *ptr = pointer_arg(n);
    const char *v[16];
    size_t nv = 0;
    params p = {r->s->def, v, &nv, 16, 0};
    if (ptr)
        bases_of(ptr, &p);
    for (size_t i = 0; i < nv && !r->hit; i++)
        for (size_t j = 0; j < r->s->nwrote && !r->hit; j++)
            r->hit = strcmp(v[i], r->s->wrote[j]) == 0;
    r->hit |= p.full || !ptr;
    return r->hit ? -1 : 0;
}

size_t tdx_km_relaxable(const tdx_src_node *def, const tdx_src_node **out, size_t max)
{
    scan s;
    memset(&s, 0, sizeof s);
    s.def = def;
    tdx_src_walk((tdx_src_node *)def, atomic_visit, &s);
    if (s.bad || !s.nsite)
        return 0;
    reads r = {&s, 0};
    tdx_src_walk((tdx_src_node *)def, load_visit, &r);
    if (r.hit)
        return 0;
    size_t n = s.nsite < max ? s.nsite : max;
    memcpy(out, s.site, n * sizeof out[0]);
    return n;
}
