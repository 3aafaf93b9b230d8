/* Level 0 rules over the kernel model (ids in src/finding/rules_l0.def).
 * Each rule says in its table entry which compiler or hardware fact it
 * rests on; the comments here say how the source evidence is read. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "triage/triage_int.h"

enum {
    H200_SMS = 132,           /* streaming multiprocessors of an H200 */
    TINY_ELEMS = 128,         /* one element per thread of 4 warps */
    TINY_DOT = 64,            /* wgmma needs M % 64 == 0 per CTA */
    BIG_ELEMS = 4096,         /* 32+ elements per thread at 4 warps */
    BIG_DOT = 128 * 256       /* 128x256 fp32 accumulator: 256 registers/thread at 4 warps */
};

/* ---- where constexpr values come from -------------------------------- */

/* One set of constexpr values a kernel runs with: a launch site, one
 * autotune config, or the signature defaults. */
typedef struct source {
    const tdx_km_file *f;
    const tdx_km_kernel *k;
    const tdx_km_launch *launch; /* or NULL */
    const tdx_km_config *config; /* or NULL */
} source;

// The value of constexpr name under source s; *where gets the node setting it.
static int cx_value(const source *s, const char *name, long long *v, const tdx_src_node **where)
{
    *where = NULL;
    if (s->config) {
        for (size_t i = 0; i < s->config->n; i++)
            if (strcmp(s->config->keys[i], name) == 0) {
                *where = s->config->node;
                *v = s->config->values[i];
                return s->config->known[i];
            }
    }
    const tdx_km_param *p = tdx_km_param_find(s->k, name);
    if (s->launch && p)
        return tdx_km_launch_constexpr(s->f, s->launch, name, v, where);
    if (p && p->has_default_value) {
        *where = p->dflt;
        *v = p->default_value;
        return 1;
    }
    return 0;
}

// The value of a tile size expression (tl.arange end, block_shape entry).
static int size_value(const source *s, const tdx_src_node *n, long long *v,
                      const tdx_src_node **where)
{
    *where = NULL;
    if (!n)
        return 0;
    if (n->kind == TDX_SRC_NUMBER)
        return tdx_src_int_value(s->f->mod, n, v) == TDX_OK;
    if (n->kind == TDX_SRC_NAME) {
        if (tdx_km_param_find(s->k, n->name))
            return cx_value(s, n->name, v, where);
        return tdx_km_fold_int(s->f, NULL, NULL, NULL, n, v);
    }
    return 0;
}

/* The tile of a kernel under one source: the largest load/store block, and
 * for tl.dot kernels the smallest and largest M x N tile. */
typedef struct tile {
    long long elems;               /* largest block of a load/store, 0 unknown */
    const tdx_src_node *elems_where;
    long long dot_min;             /* smallest M or N of any tl.dot, 0 unknown */
    const tdx_src_node *dot_min_where;
    long long dot_area;            /* largest M*N, 0 unknown */
    long long m, n;                /* the tile giving dot_min */
} tile;

// The tile of the kernel under source s.
static tile tile_of(const source *s)
{
    tile t = {0};
    for (size_t i = 0; i < s->k->accesses.len; i++) {
        const tdx_km_access *a = s->k->accesses.items[i];
        if (a->addr.flags & TDX_KM_V_DATA)
            continue;
        long long prod = 1;
        int any = 0, ok = 1;
        const tdx_src_node *where = NULL;
        for (int r = 0; r < TDX_KM_MAXRANK && ok; r++) {
            const tdx_km_axis *ax = &a->addr.axis[r];
            if (ax->mult == TDX_KM_MULT_NONE)
                continue;
            long long v;
            const tdx_src_node *w;
            if (!size_value(s, ax->size, &v, &w) || v <= 0 || __builtin_mul_overflow(prod, v, &prod))
                ok = 0; /* unknown, or a tile past a long long: no count */
            else
                any = 1, where = w ? w : where;
        }
        if (ok && any && prod > t.elems)
            t.elems = prod, t.elems_where = where;
    }
    for (size_t i = 0; i < s->k->ops.len; i++) {
        const tdx_km_op *op = s->k->ops.items[i];
        if (op->kind != TDX_KM_OP_DOT)
            continue;
        long long m, n;
        const tdx_src_node *wm, *wn;
        if (!size_value(s, op->dim_m, &m, &wm) || !size_value(s, op->dim_n, &n, &wn))
            continue;
        long long lo = m < n ? m : n;
        if (!t.dot_min || lo < t.dot_min) {
            t.dot_min = lo;
            t.dot_min_where = m <= n ? wm : wn;
            t.m = m, t.n = n;
        }
        if (m * n > t.dot_area)
            t.dot_area = m * n;
    }
    return t;
}

/* TDX001 tiny-block and TDX012 big-block-default-warps, which read the
 * same tile sizes from the same sources. */
static void block_rules(tdx_tri *t, const tdx_km_kernel *k, const tdx_tri_class *cls)
{
    int dot = tdx_tri_has_dot(k);
    source base = {t->file, k, NULL, NULL};
    int heur_warps = 0;
    for (size_t i = 0; i < k->nheuristic_keys; i++)
        heur_warps |= strcmp(k->heuristic_keys[i], "num_warps") == 0;

    if (k->autotune_deco && k->configs_known && k->nconfigs > 0) {
        /* autotuning picks the best config, so tiny configs only matter when
         * every one of them is tiny */
        int all_tiny = 1;
        long long best = 0;
        for (size_t i = 0; i < k->nconfigs; i++) {
            source s = base;
            s.config = &k->configs[i];
            if (k->launches.len)
                s.launch = k->launches.items[0];
            tile tl = tile_of(&s);
            long long size = dot ? tl.dot_min : tl.elems;
            if (!size || size >= (dot ? TINY_DOT : TINY_ELEMS))
                all_tiny = 0;
            if (size > best)
                best = size;
            long long big = dot ? tl.dot_area : tl.elems;
            if (s.config->num_warps < 0 && !heur_warps && big >= (dot ? BIG_DOT : BIG_ELEMS)) {
                tdx_finding *f = tdx_tri_add(
                    t, "TDX012", s.config->node, 0, 0, k->name, 0.7,
                    "autotune config with a %lld-element %s runs with the default 4 warps", big,
                    dot ? "tl.dot tile" : "block");
                if (f)
                    tdx_finding_set_hypothesis(t->ledger, f,
                                               "each thread holds %lld values of the tile, "
                                               "raising register pressure",
                                               big / 128);
            }
        }
        if (all_tiny) {
            tdx_finding *f = tdx_tri_add(
                t, "TDX001", k->autotune_deco, 0, 0, k->name, 0.75,
                "every autotune config of '%s' uses blocks of at most %lld %s", k->name, best,
                dot ? "rows/columns per tl.dot tile" : "elements");
            if (f)
                tdx_finding_set_hypothesis(t->ledger, f,
                                           "too little work per program for this %s kernel",
                                           cls->pattern);
        }
        return;
    }
    size_t nsrc = k->launches.len ? k->launches.len : 1;
    for (size_t i = 0; i < nsrc; i++) {
        source s = base;
        s.launch = k->launches.len ? k->launches.items[i] : NULL;
        tile tl = tile_of(&s);
        if (dot && tl.dot_min && tl.dot_min < TINY_DOT) {
            const tdx_src_node *w = tl.dot_min_where;
            tdx_finding *f = tdx_tri_add(
                t, "TDX001", w ? w : (s.launch ? s.launch->call : k->def), 0, 0, k->name, 0.8,
                "tl.dot tile of %lldx%lld is below the 64 rows Hopper's wgmma needs", tl.m, tl.n);
            if (f) {
                tdx_finding_set_hypothesis(t->ledger, f,
                                           "small tiles fall back to mma.sync and reload each "
                                           "operand byte many times");
                tdx_finding_fact(t->ledger, f, "tile", "%lldx%lld", tl.m, tl.n);
            }
        } else if (!dot && tl.elems && tl.elems < TINY_ELEMS) {
            const tdx_src_node *w = tl.elems_where;
            tdx_finding *f = tdx_tri_add(
                t, "TDX001", w ? w : (s.launch ? s.launch->call : k->def), 0, 0, k->name, 0.8,
                "block of %lld elements is too small for this %s kernel (want at least %d)",
                tl.elems, cls->pattern, TINY_ELEMS);
            if (f) {
                tdx_finding_set_hypothesis(t->ledger, f,
                                           "fewer elements than the 128 threads of 4 warps: "
                                           "idle lanes and no 128-bit vector loads");
                tdx_finding_fact(t->ledger, f, "block_elements", "%lld", tl.elems);
            }
        }
        if (!s.launch || s.launch->num_warps || heur_warps)
            continue;
        long long big = dot ? tl.dot_area : tl.elems;
        if (big >= (dot ? BIG_DOT : BIG_ELEMS)) {
            tdx_finding *f = tdx_tri_add(
                t, "TDX012", s.launch->call, 0, 0, k->name, 0.7,
                "%lld-element %s launched without num_warps (defaults to 4)", big,
                dot ? "tl.dot tile" : "block");
            if (f)
                tdx_finding_set_hypothesis(t->ledger, f,
                                           "each thread holds %lld values of the tile, raising "
                                           "register pressure and possibly spilling",
                                           big / 128);
        }
    }
}

/* ---- the access rules ------------------------------------------------ */

// Non-zero when loop inner is outer or nested in it.
static int loop_within(const tdx_km_loop *inner, const tdx_km_loop *outer)
{
    for (; inner; inner = inner->parent)
        if (inner == outer)
            return 1;
    return 0;
}

// A block access: tl.arange offsets or a block pointer.
static int is_vector_access(const tdx_km_access *a)
{
    return (a->addr.flags & TDX_KM_V_BLOCKPTR) || tdx_tri_naxes(&a->addr) > 0;
}

/* TDX002: a loop with a runtime trip count whose body loads one element per
 * iteration at an address driven by the loop variable, and no vector access. */
static void scalar_loop_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->loops.len; i++) {
        const tdx_km_loop *lp = k->loops.items[i];
        if (lp->kind == TDX_KM_LOOP_STATIC || !lp->runtime_bound || lp->id >= TDX_KM_MAXLOOPS)
            continue;
        const tdx_km_access *scalar = NULL;
        int vector = 0;
        for (size_t j = 0; j < k->accesses.len; j++) {
            const tdx_km_access *a = k->accesses.items[j];
            if (!loop_within(a->loop, lp))
                continue;
            if (is_vector_access(a))
                vector = 1;
            else if (a->kind == TDX_KM_LOAD && (a->addr.loops & (1u << lp->id)) && !scalar)
                scalar = a;
        }
        if (!scalar || vector)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX002", lp->node, 0, 0, k->name, 0.85,
                                     "loop over '%s' loads one element per iteration",
                                     lp->var ? lp->var : "?");
        if (f) {
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "one serialized scalar load per iteration instead of a "
                                       "vector of BLOCK elements per program");
            tdx_finding_fact(t->ledger, f, "load_line", "%d", scalar->call->line);
        }
    }
}

// Non-zero when parameter p is known to be a stride that is not 1: a launch
// passes `t.stride(0)` for it, or its name says it is a row stride.
/* Non-zero when v reads a tensor's sizes: `x.shape`, `x.shape[i]`, `x.size()`, `x.size(i)`. */
static int is_shape_read(const tdx_src_node *v)
{
    if (v && v->kind == TDX_SRC_SUBSCRIPT)
        v = tdx_src_kid(v, TDX_SRC_R_VALUE);
    if (v && v->kind == TDX_SRC_CALL) {
        const tdx_src_node *fn = tdx_src_call_func(v);
        return fn && fn->kind == TDX_SRC_ATTRIBUTE && fn->name && strcmp(fn->name, "size") == 0;
    }
    return v && v->kind == TDX_SRC_ATTRIBUTE && v->name && strcmp(v->name, "shape") == 0;
}

typedef struct size_find {
    const char *name;
    int found;
} size_find;

/* Visitor: an assignment that binds size_find.name from a tensor's sizes
 * (`n_rows, n_cols = x.shape`, `n = x.shape[1]`). */
static int find_size_binding(tdx_src_node *n, void *ud)
{
    size_find *sf = ud;
    if (n->kind != TDX_SRC_ASSIGN)
        return 0;
    const tdx_src_node *v = tdx_src_kid(n, TDX_SRC_R_VALUE);
    if (!is_shape_read(v))
        return 1;
    for (const tdx_src_node *tg = tdx_src_next(n, TDX_SRC_R_TARGET, NULL); tg;
         tg = tdx_src_next(n, TDX_SRC_R_TARGET, tg)) {
        if (tg->kind == TDX_SRC_NAME && tg->name && strcmp(tg->name, sf->name) == 0)
            sf->found = 1;
        if (tg->kind == TDX_SRC_TUPLE || tg->kind == TDX_SRC_LIST)
            for (const tdx_src_node *e = tdx_src_next(tg, TDX_SRC_R_ELT, NULL); e;
                 e = tdx_src_next(tg, TDX_SRC_R_ELT, e))
                if (e->kind == TDX_SRC_NAME && e->name && strcmp(e->name, sf->name) == 0)
                    sf->found = 1;
    }
    return sf->found ? -1 : 1;
}

/* Non-zero when the launch passes a tensor's size for this parameter: the
 * argument is read from `.shape`/`.size()` directly, or is a name the
 * launching function binds from them. A size that multiplies an index is a
 * row stride, which is 1 only for a degenerate dimension. */
static int arg_is_size(const tdx_km_launch *l, const tdx_src_node *a)
{
    if (is_shape_read(a))
        return 1;
    if (!a || a->kind != TDX_SRC_NAME || !a->name || !l->scope || l->scope->kind != TDX_SRC_FUNCDEF)
        return 0;
    size_find sf = {a->name, 0};
    tdx_src_walk((tdx_src_node *)l->scope, find_size_binding, &sf);
    return sf.found;
}

static int known_nonunit_param(const tdx_tri *t, const tdx_km_kernel *k, const char *p)
{
    const tdx_km_param *prm = tdx_km_param_find(k, p);
    if (!prm)
        return 0;
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        const tdx_src_node *a = l->args[prm->index];
        if (arg_is_size(l, a))
            return 1;
        if (!a || a->kind != TDX_SRC_CALL)
            continue;
        const tdx_src_node *fn = tdx_src_call_func(a);
        long long dim;
        if (fn && fn->kind == TDX_SRC_ATTRIBUTE && fn->name && strcmp(fn->name, "stride") == 0 &&
            tdx_src_call_nargs(a) == 1 &&
            tdx_src_int_value(t->file->mod, tdx_src_call_arg(a, 0), &dim) == TDX_OK && dim == 0)
            return 1;
    }
    char low[64];
    size_t n = strlen(p);
    if (n >= sizeof low)
        n = sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)p[i]);
    low[n] = 0;
    return strstr(low, "row") != NULL;
}

/* TDX003: every axis of an access is multiplied by a known non-unit stride,
 * so no axis is contiguous and the coalescer has nothing to vectorize. */
static void strided_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->addr.flags & (TDX_KM_V_BLOCKPTR | TDX_KM_V_DATA))
            continue;
        int axes = 0, strided = 0;
        const char *why = NULL;
        long long factor = 0;
        for (int r = 0; r < TDX_KM_MAXRANK; r++) {
            const tdx_km_axis *ax = &a->addr.axis[r];
            if (ax->mult == TDX_KM_MULT_NONE)
                continue;
            axes++;
            if (ax->mult == TDX_KM_MULT_CONST && (ax->mult_const >= 2 || ax->mult_const <= -2)) {
                strided++;
                factor = ax->mult_const;
            } else if (ax->mult == TDX_KM_MULT_PARAM && known_nonunit_param(t, k, ax->mult_param)) {
                strided++;
                why = ax->mult_param;
            }
        }
        if (!axes || strided != axes)
            continue;
        tdx_finding *f;
        if (why)
            f = tdx_tri_add(t, "TDX003", a->call, 0, 0, k->name, 0.75,
                            "%s walks memory with stride '%s' on its only tile axis", a->op, why);
        else
            f = tdx_tri_add(t, "TDX003", a->call, 0, 0, k->name, 0.75,
                            "%s strides by %lld elements: no axis of the tile is contiguous",
                            a->op, factor);
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "neighbouring threads touch addresses a stride apart: one "
                                       "useful element per 32-byte sector, no vector loads");
    }
}

/* TDX004: tl.sum over the product of two broadcast-expanded operands of
 * rank 3: a matrix product computed on the CUDA cores. */
static void manual_dot_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind != TDX_KM_OP_REDUCE || strcmp(op->name, "sum") != 0 ||
            !(op->input.flags & TDX_KM_V_PROD3))
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX004", op->call, 0, 0, k->name, 0.85,
                                     "broadcast multiply and sum computes a matrix product; "
                                     "use tl.dot");
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "the product runs as FMA on CUDA cores with a 3-D "
                                       "register intermediate instead of on tensor cores");
    }
}

/* Non-zero when loops p and q are one pass split in two: in the same
 * enclosing loop, with the same step, and one starts where the other stops
 * (`range(0, full, B)` then `range(full, n, B)`, as peel-masks leaves the
 * unmasked blocks and the rest). */
static int split_pass(const tdx_src_module *m, const tdx_km_loop *p, const tdx_km_loop *q)
{
    if (p->parent != q->parent || !p->start || !p->stop || !q->start || !q->stop)
        return 0;
    if (p->step_is_one != q->step_is_one || (!p->step) != (!q->step) ||
        (p->step && !tdx_src_same_text(m, p->step, q->step)))
        return 0;
    return tdx_src_same_text(m, p->stop, q->start) || tdx_src_same_text(m, q->stop, p->start);
}

/* TDX005: the same pointer is loaded as a tile in two or more loops that
 * are not nested in each other (nor one pass split in two): separate
 * passes over the same data. */
static void multi_pass_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->kind != TDX_KM_LOAD || !a->addr.base || !a->loop || !is_vector_access(a))
            continue;
        /* only the first load of each base starts a check */
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const tdx_km_access *b = k->accesses.items[j];
            seen = b->kind == TDX_KM_LOAD && b->addr.base && b->loop && is_vector_access(b) &&
                   strcmp(b->addr.base, a->addr.base) == 0;
        }
        if (seen)
            continue;
        const tdx_km_access *second = NULL;
        const tdx_km_loop *loops[16];
        int npass = 0;
        loops[npass++] = a->loop;
        for (size_t j = i + 1; j < k->accesses.len; j++) {
            const tdx_km_access *b = k->accesses.items[j];
            if (b->kind != TDX_KM_LOAD || !b->addr.base || !b->loop || !is_vector_access(b) ||
                strcmp(b->addr.base, a->addr.base) != 0)
                continue;
            int fresh = 1;
            for (int p = 0; p < npass && fresh; p++)
                fresh = !(loops[p]->node == b->loop->node || loop_within(b->loop, loops[p]) ||
                          loop_within(loops[p], b->loop) || split_pass(t->file->mod, loops[p], b->loop));
            if (!fresh || npass == 16)
                continue;
            loops[npass++] = b->loop;
            if (!second)
                second = b;
        }
        if (!second)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX005", second->call, 0, 0, k->name,
                                     npass >= 3 ? 0.85 : 0.65,
                                     "'%s' is loaded in %d separate passes (first at line %d)",
                                     a->addr.base, npass, a->call->line);
        if (f) {
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "each pass re-reads the data from DRAM when it does not "
                                       "stay in L2: up to %dx the bytes of one pass",
                                       npass);
            tdx_finding_fact(t->ledger, f, "passes", "%d", npass);
        }
    }
}

/* Non-zero for a tl.dot forced to IEEE fp32 (input_precision="ieee" or
 * allow_tf32=False) whose operands are not visibly cast to a 16-bit type
 * (then the flag does nothing): an FMA dot, from registers. */
static int fma_dot(const tdx_km_op *op)
{
    int ieee = op->input_precision && strcmp(op->input_precision, "ieee") == 0;
    return op->kind == TDX_KM_OP_DOT && !op->operands_half && (ieee || op->allow_tf32 == 0);
}

/* TDX006: tl.dot forced to IEEE fp32 (no tensor cores), fma_dot. */
static void ieee_dot_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (!fma_dot(op))
            continue;
        int ieee = op->input_precision && strcmp(op->input_precision, "ieee") == 0;
        tdx_finding *f = tdx_tri_add(t, "TDX006", op->call, 0, 0, k->name, 0.7,
                                     "tl.dot with %s runs fp32 operands without tensor cores",
                                     ieee ? "input_precision=\"ieee\"" : "allow_tf32=False");
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "IEEE fp32 dots lower to FMA: about 67 TFLOP/s on H200 "
                                       "against about 495 for tf32 wgmma");
    }
}

/* TDX010: do_not_specialize on an argument that is a stride or a size. */
static int stride_or_size_name(const char *s)
{
    char low[64];
    size_t n = strlen(s);
    if (n >= sizeof low)
        return 0;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    static const char *const exact[] = {"n", "m", "k", "numel", "size", "length", "dim", "ncols",
                                        "nrows", "seq_len", "seqlen", NULL};
    for (const char *const *e = exact; *e; e++)
        if (strcmp(low, *e) == 0)
            return 1;
    if (strstr(low, "stride") || strncmp(low, "n_", 2) == 0 || strncmp(low, "num_", 4) == 0)
        return 1;
    static const char *const suffix[] = {"_size", "_len", "_elements", "_numel", "_rows",
                                         "_cols", "_dim", NULL};
    for (const char *const *e = suffix; *e; e++) {
        size_t m = strlen(*e);
        if (n > m && strcmp(low + n - m, *e) == 0)
            return 1;
    }
    return 0;
}

static void no_specialize_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    if (!k->no_specialize_deco)
        return;
    char names[256] = "";
    int count = 0;
    for (size_t i = 0; i < k->nparams; i++) {
        const tdx_km_param *p = &k->params[i];
        if (!p->no_specialize || p->kind == TDX_KM_PARAM_CONSTEXPR ||
            !stride_or_size_name(p->name))
            continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s'%s'", count ? ", " : "", p->name);
        count++;
    }
    if (!count)
        return;
    tdx_finding *f = tdx_tri_add(t, "TDX010", k->no_specialize_deco, 0, 0, k->name, 0.8,
                                 "do_not_specialize on %s drops their divisibility and ==1 "
                                 "specialization",
                                 names);
    if (f)
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "without tt.divisibility the loads through these arguments "
                                   "cannot be proven aligned and stay scalar");
}

/* TDX011: .to(tl.int64) / tl.cast(..., tl.int64) inside a loop. */
static void int64_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind != TDX_KM_OP_INT64 || !op->loop)
            continue;
        /* a whole tile of offsets widened costs per element; a scalar
         * (a tile index in a persistent loop) only per iteration */
        int whole = op->input.rank > 0 || (op->input.flags & TDX_KM_V_ARANGE);
        tdx_finding *f = tdx_tri_add(t, "TDX011", op->call, 0, 0, k->name, whole ? 0.7 : 0.4,
                                     "%s widened to int64 inside the loop at line %d",
                                     whole ? "tile of offsets" : "index",
                                     op->loop->node->line);
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "64-bit integer ops take two instructions each and double "
                                       "the registers of the offsets, every iteration");
    }
}

/* TDX009: a launch whose grid folds to fewer programs than the H200 has SMs. */
static void small_grid_rule(tdx_tri *t, const tdx_km_kernel *k, const tdx_tri_class *cls)
{
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        if (l->grid_size < 0 || l->grid_size >= H200_SMS)
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX009", l->call, 0, 0, k->name, 0.8,
                                     "grid of %lld programs leaves %lld of the 132 SMs idle",
                                     l->grid_size, H200_SMS - l->grid_size);
        if (!f)
            continue;
        if (strstr(cls->pattern, "matmul"))
            f->family = "split-k";
        else if (tdx_tri_serial_loop(k))
            f->family = "split-reduction"; /* each program walks a whole reduction: split it */
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "at most %lld%% of the GPU's bandwidth and compute can be used",
                                   l->grid_size * 100 / H200_SMS);
        tdx_finding_fact(t->ledger, f, "programs", "%lld", l->grid_size);
    }
}

// Non-zero when a stage count expression folds to 1 or less.
static int one_stage(const tdx_tri *t, const tdx_km_launch *l, const tdx_src_node *n)
{
    long long v;
    return n && tdx_km_fold_int(t->file, l ? l->scope : NULL, l ? l->call : NULL, NULL, n, &v) &&
           v <= 1;
}

/* TDX013: a loop with a tl.dot that cannot be pipelined because its stage
 * count is 1: on the loop (tl.range), at a launch, or in every autotune
 * config. Not for an IEEE fp32 dot (fma_dot): it runs on the FMA units
 * from registers, and staging its operands through shared memory cost the
 * suite's convolutions 12-15 % on the H200 (dot-accumulate launches them
 * with num_stages=1 for that; bench/RESULTS.md, eleventh session). */
static void pipelining_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    const tdx_km_op *dot = NULL;
    for (size_t i = 0; i < k->ops.len && !dot; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind == TDX_KM_OP_DOT && op->loop && !fma_dot(op))
            dot = op;
    }
    if (!dot)
        return;
    /* a stage count on the loop (or an enclosing one) overrides the launch's;
     * num_stages is -1 when not given and 0 when given but not foldable */
    for (const tdx_km_loop *lp = dot->loop; lp; lp = lp->parent) {
        if (lp->num_stages < 0)
            continue;
        if (lp->num_stages != 1)
            return;
        tdx_finding *f = tdx_tri_add(t, "TDX013", lp->node, 0, 0, k->name, 0.7,
                                     "tl.range(num_stages=1) keeps the tl.dot loop from being "
                                     "pipelined");
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "each iteration waits for its operand loads; the tensor "
                                       "cores idle during memory latency");
        return;
    }
    if (k->autotune_deco && k->configs_known && k->nconfigs > 0) {
        for (size_t i = 0; i < k->nconfigs; i++)
            if (k->configs[i].num_stages != 1)
                return;
        tdx_finding *f = tdx_tri_add(t, "TDX013", k->autotune_deco, 0, 0, k->name, 0.6,
                                     "every autotune config of '%s' sets num_stages=1", k->name);
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "the tl.dot loop is never software-pipelined");
        return;
    }
    for (size_t i = 0; i < k->launches.len; i++) {
        const tdx_km_launch *l = k->launches.items[i];
        if (!one_stage(t, l, l->num_stages))
            continue;
        tdx_finding *f = tdx_tri_add(t, "TDX013", l->num_stages, 0, 0, k->name, 0.7,
                                     "launch with num_stages=1 keeps the tl.dot loop from being "
                                     "pipelined");
        if (f)
            tdx_finding_set_hypothesis(t->ledger, f,
                                       "each iteration waits for its operand loads; the tensor "
                                       "cores idle during memory latency");
    }
}

/* The kernel's first math call named name (tl.exp, tl.math.erf, ...), or NULL. */
static const tdx_km_op *first_math(const tdx_km_kernel *k, const char *name)
{
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind == TDX_KM_OP_MATH && strcmp(op->name, name) == 0)
            return op;
    }
    return NULL;
}

/* TDX014: tl.exp (not exp2) in a softmax/norm or attention kernel; one note
 * per kernel, at its first tl.exp. */
static void exp2_rule(tdx_tri *t, const tdx_km_kernel *k, const tdx_tri_class *cls)
{
    if (strcmp(cls->pattern, "softmax-norm") != 0 && strcmp(cls->pattern, "attention") != 0)
        return;
    const tdx_km_op *op = first_math(k, "exp");
    tdx_finding *f = op ? tdx_tri_add(t, "TDX014", op->call, 0, 0, k->name, 0.4,
                                      "tl.exp costs a multiply by log2(e) per element; fold it "
                                      "into the scale and use tl.exp2")
                        : NULL;
    if (f)
        tdx_finding_set_hypothesis(t->ledger, f, "one FMUL per element on the kernel's exponential");
}

/* TDX030: tl.math.erf (libdevice's erff) in a kernel without tl.dot: the
 * erf-polynomial family's case. One finding per kernel, at its first erf. */
static void erf_rule(tdx_tri *t, const tdx_km_kernel *k)
{
    const tdx_km_op *op = tdx_tri_has_dot(k) ? NULL : first_math(k, "erf");
    tdx_finding *f = op ? tdx_tri_add(t, "TDX030", op->call, 0, 0, k->name, 0.45,
                                      "tl.math.erf is libdevice's erff: about twenty instructions an element "
                                      "beside one load and one store")
                        : NULL;
    if (f)
        tdx_finding_set_hypothesis(t->ledger, f,
                                   "the SMs issue erf's instructions slower than memory delivers the "
                                   "elements; a short polynomial with one exp2 brings the kernel back "
                                   "to memory speed");
}

void tdx_tri_rules_kernel(tdx_tri *t, const tdx_km_kernel *k, const tdx_tri_class *cls)
{
    pipelining_rule(t, k);
    exp2_rule(t, k, cls);
    erf_rule(t, k);
    block_rules(t, k, cls);
    scalar_loop_rule(t, k);
    strided_rule(t, k);
    manual_dot_rule(t, k);
    multi_pass_rule(t, k);
    ieee_dot_rule(t, k);
    small_grid_rule(t, k, cls);
    tdx_tri_tiles_rule(t, k);
    tdx_tri_tile_order_rule(t, k);
    tdx_tri_serial_rule(t, k);
    tdx_tri_tiny_rule(t, k);
    tdx_tri_thin_loop_rule(t, k);
    tdx_tri_operand_layout_rule(t, k);
    tdx_tri_shared_tile_rule(t, k);
    tdx_tri_defer_rule(t, k);
    tdx_tri_peel_rule(t, k);
    tdx_tri_tma_rule(t, k);
    tdx_tri_scaled_dot_rule(t, k);
    tdx_tri_row_division_rule(t, k);
    tdx_tri_reverse_rule(t, k);
    tdx_tri_heavy_rule(t, k);
    tdx_tri_dotacc_rule(t, k);
    tdx_tri_atomic_rule(t, k);
    tdx_tri_atomic_tile_rule(t, k);
    no_specialize_rule(t, k);
    int64_rule(t, k);
}
