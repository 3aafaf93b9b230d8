/* autotune: a launch's block sizes, num_warps and num_stages become a
 * @triton.autotune config list over the kernel, keyed on the launch's size
 * arguments. The best tile depends on the problem size and the best choice
 * on the GPU: Triton's Autotuner (python/triton/runtime/autotuner.py) times
 * each triton.Config at the first launch of each key and keeps the fastest,
 * passing the config's kwargs, num_warps and num_stages to the kernel. So the
 * launch must no longer pass them (Autotuner refuses conflicting
 * meta-parameters, and a second num_warps is a duplicate keyword), and a grid
 * that used a block size must read it from the META dict it is called with. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/fam_common.h"

enum { AT_MAX_BLOCKS = 6, AT_MAX_CFGS = 16, AT_MAX_KEYS = 8 };

typedef struct at_block {
    const char *name;  /* the keyword (and kernel constexpr) name */
    const char *var;   /* the launch-side variable it is passed as, or NULL */
    tdx_src_node *kw;  /* the KEYWORD node in the launch */
    tdx_src_node *lit; /* the literal giving its value */
    long long v;
    char axis;         /* last letter of the name, upper-cased */
} at_block;

typedef struct at_cfg {
    long long b[AT_MAX_BLOCKS];
    long long w, s;
} at_cfg;

typedef struct at_site {
    tdx_src_node *L, *kdef, *hdef; /* launch, kernel def, launching def */
    at_block b[AT_MAX_BLOCKS];
    size_t nb;
    tdx_src_node *warps, *stages; /* the launch's keywords, or NULL */
    long long w, s;
    const char *keys[AT_MAX_KEYS];
    size_t nkeys;
    int has_dot, has_loop;
} at_site;

// Whether a keyword names a block-size constexpr (the names retune tunes).
static int at_is_block_name(const char *name)
{
    return name && (strncmp(name, "BLOCK", 5) == 0 || strncmp(name, "TILE", 4) == 0 ||
                    strstr(name, "BLOCK_SIZE") != NULL);
}

// Whether n lies inside the span of root.
static int inside(const tdx_src_node *n, const tdx_src_node *root)
{
    return root && n->start >= root->start && n->end <= root->end;
}

// Whether the kernel calls one of the dotted names anywhere in its body.
static int kernel_calls(fam_task *t, tdx_src_node *def, const char *prefix)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        char *d = tdx_src_dotted(tdx_src_call_func(calls.items[i]), &t->arena);
        if (d && strncmp(d, prefix, strlen(prefix)) == 0)
            return 1;
    }
    return 0;
}

// Whether the kernel stores through a pointer parameter it also loads from,
// or the launch passes one name twice: the Autotuner runs the kernel once
// per config (and again to time it), so a read-modify-write would see its
// own earlier results.
static int rewrites_its_input(fam_task *t, tdx_src_node *kdef, tdx_src_node *L)
{
    for (size_t i = 0; i < tdx_src_call_nargs(L); i++)
        for (size_t j = i + 1; j < tdx_src_call_nargs(L); j++) {
            tdx_src_node *a = tdx_src_call_arg(L, i), *b = tdx_src_call_arg(L, j);
            if (a->kind == TDX_SRC_NAME && b->kind == TDX_SRC_NAME && strcmp(a->name, b->name) == 0)
                return 1;
        }
    tdx_ptrvec calls = {0};
    fam_collect(t, kdef, TDX_SRC_CALL, &calls);
    for (tdx_src_node *p = tdx_src_next(kdef, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(kdef, TDX_SRC_R_PARAM, p)) {
        int loads = 0, stores = 0;
        for (size_t i = 0; p->name && i < calls.len; i++) {
            tdx_src_node *ptr;
            int io = fam_io_call(calls.items[i], &ptr);
            if (!ptr || !fam_mentions(ptr, p->name))
                continue;
            loads |= io == FAM_IO_LOAD;
            stores |= io == FAM_IO_STORE;
        }
        if (loads && stores)
            return 1;
    }
    return 0;
}

// Whether an expression reads a tensor's size: x.shape, x.shape[i],
// x.numel(), x.size(i), len(x), or arithmetic on them.
static int size_expr(const tdx_src_node *n)
{
    if (!n)
        return 0;
    switch (n->kind) {
    case TDX_SRC_ATTRIBUTE:
        return n->name && strcmp(n->name, "shape") == 0;
    case TDX_SRC_SUBSCRIPT:
        return size_expr(tdx_src_kid(n, TDX_SRC_R_VALUE));
    case TDX_SRC_BINOP:
        return size_expr(tdx_src_kid(n, TDX_SRC_R_LEFT)) || size_expr(tdx_src_kid(n, TDX_SRC_R_RIGHT));
    case TDX_SRC_CALL: {
        const tdx_src_node *f = tdx_src_call_func(n);
        if (f && f->kind == TDX_SRC_ATTRIBUTE && f->name)
            return strcmp(f->name, "numel") == 0 || strcmp(f->name, "size") == 0;
        return tdx_src_is_dotted(f, "len");
    }
    default:
        return 0;
    }
}

// Whether a launch argument is an integer size: it reads a size itself, or
// names a variable of the launching def assigned (alone or unpacked) from one.
static int is_size_arg(fam_task *t, tdx_src_node *hdef, tdx_src_node *arg)
{
    if (arg->kind != TDX_SRC_NAME)
        return size_expr(arg);
    tdx_ptrvec assigns = {0};
    fam_collect(t, hdef, TDX_SRC_ASSIGN, &assigns);
    for (size_t i = 0; i < assigns.len; i++) {
        tdx_src_node *a = assigns.items[i], *tg = tdx_src_kid(a, TDX_SRC_R_TARGET);
        tdx_src_node *v = tdx_src_kid(a, TDX_SRC_R_VALUE);
        if (!tg || !v)
            continue;
        if (tg->kind == TDX_SRC_NAME && strcmp(tg->name, arg->name) == 0 && size_expr(v))
            return 1;
        if (tg->kind == TDX_SRC_TUPLE && fam_mentions(tg, arg->name) && v->kind == TDX_SRC_ATTRIBUTE &&
            size_expr(v))
            return 1; /* M, K = a.shape */
    }
    return 0;
}

// Collect what the rewrite needs at one launch; 0 to leave the launch alone.
static int at_site_of(fam_task *t, tdx_src_node *L, at_site *a)
{
    memset(a, 0, sizeof *a);
    a->L = L;
    a->kdef = fam_launched_kernel(t, L);
    a->hdef = fam_enclosing_def(L);
    if (!a->kdef || !a->hdef)
        return 0;
    /* an autotuned or heuristics-wrapped kernel already chooses its meta-parameters */
    if (fam_self_tuned(a->kdef))
        return 0;
    if (!tdx_src_decorator(a->kdef, "triton.jit"))
        return 0; /* the decorator written must name the module as the kernel does */
    /* the Autotuner runs the kernel once per config: atomics would add up */
    if (kernel_calls(t, a->kdef, "tl.atomic_") || rewrites_its_input(t, a->kdef, L))
        return 0;
    /* one launch site per kernel: the decorator changes every launch of it */
    for (size_t i = 0; i < t->launches.len; i++)
        if (t->launches.items[i] != L && fam_launched_kernel(t, t->launches.items[i]) == a->kdef)
            return 0;
    for (tdx_src_node *k = tdx_src_next(L, TDX_SRC_R_KEYWORD, NULL); k;
         k = tdx_src_next(L, TDX_SRC_R_KEYWORD, k)) {
        if (!k->name)
            return 0; /* **kwargs: the launch's keywords are not all known */
        tdx_src_node *v = tdx_src_kid(k, TDX_SRC_R_VALUE);
        if (strcmp(k->name, "num_warps") == 0 || strcmp(k->name, "num_stages") == 0) {
            long long x;
            if (!v || tdx_src_int_value(t->m, v, &x) != TDX_OK || x <= 0)
                return 0;
            if (k->name[4] == 'w') {
                a->warps = k;
                a->w = x;
            } else {
                a->stages = k;
                a->s = x;
            }
            continue;
        }
        if (!at_is_block_name(k->name) || a->nb >= AT_MAX_BLOCKS)
            continue;
        tdx_src_node *p = tdx_src_param(a->kdef, k->name);
        long long x;
        tdx_src_node *lit = fam_int_literal(t, v, &x);
        if (!p || !tdx_src_param_is_constexpr(p) || !lit || x <= 0)
            continue;
        at_block *b = &a->b[a->nb++];
        b->name = k->name;
        b->var = v->kind == TDX_SRC_NAME ? v->name : NULL;
        b->kw = k;
        b->lit = lit;
        b->v = x;
        size_t l = strlen(k->name);
        b->axis = (char)toupper((unsigned char)k->name[l - 1]);
    }
    if (!a->nb)
        return 0;
    if (!a->warps)
        a->w = 4; /* Triton's defaults (python/triton/runtime/jit.py) */
    if (!a->stages)
        a->s = 3;
    a->has_dot = kernel_calls(t, a->kdef, "tl.dot");
    tdx_ptrvec loops = {0};
    fam_collect(t, a->kdef, TDX_SRC_FOR, &loops);
    a->has_loop = loops.len > 0;
    /* key: the non-constexpr parameters fed a size read from a tensor */
    size_t i = 0;
    for (tdx_src_node *p = tdx_src_next(a->kdef, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(a->kdef, TDX_SRC_R_PARAM, p), i++) {
        if (p->flags & (TDX_SRC_F_STAR | TDX_SRC_F_DSTAR | TDX_SRC_F_SLASH))
            break;
        if (!p->name || tdx_src_param_is_constexpr(p) || a->nkeys >= AT_MAX_KEYS)
            continue;
        tdx_src_node *arg = i < tdx_src_call_nargs(L) ? tdx_src_call_arg(L, i) : NULL;
        if (!arg)
            arg = tdx_src_call_kwarg(L, p->name);
        if (arg && is_size_arg(t, a->hdef, arg))
            a->keys[a->nkeys++] = p->name;
    }
    return 1;
}

// The block a grid literal stands for, or NULL: with one block any literal of
// its value; with several, `f(X, v)` pairs v with the block whose name ends in
// X's last letter (cdiv(M, 64) with BLOCK_M), as retune does.
static at_block *grid_block_of(fam_task *t, at_site *a, tdx_src_node *num, long long v)
{
    at_block *hit = NULL;
    int hits = 0;
    for (size_t i = 0; i < a->nb; i++) {
        if (a->b[i].v != v)
            continue;
        if (a->nb > 1) {
            tdx_src_node *call = num->parent;
            if (!call || call->kind != TDX_SRC_CALL || tdx_src_call_nargs(call) != 2 ||
                tdx_src_call_arg(call, 1) != num)
                continue;
            size_t xl;
            const char *x = tdx_src_text(t->m, tdx_src_call_arg(call, 0), &xl);
            if (!xl || toupper((unsigned char)x[xl - 1]) != a->b[i].axis)
                continue;
        }
        hit = &a->b[i];
        hits++;
    }
    return hits == 1 ? hit : NULL;
}

// Whether n lies inside a launch other than L, its inline grid included.
static int in_other_launch(const fam_task *t, const tdx_src_node *L, const tdx_src_node *n)
{
    for (size_t i = 0; i < t->launches.len; i++)
        if (t->launches.items[i] != L && inside(n, t->launches.items[i]))
            return 1;
    return 0;
}

// The grid rewritten to read the block sizes from META, into out (empty when
// it needs no change); 0 when the grid cannot be rewritten, or a block value
// is used in the launching def elsewhere than the grid and the launch.
static int at_grid(fam_task *t, at_site *a, tdx_src_node **gnode, tdx_buf *out)
{
    tdx_src_node *gidx = NULL;
    tdx_src_is_launch(a->L, NULL, &gidx);
    tdx_src_node *g = fam_grid_of(t, a->L);
    *gnode = g;
    if (!g || !gidx)
        return 0;
    tdx_ptrvec names = {0}, nums = {0};
    fam_collect(t, a->hdef, TDX_SRC_NAME, &names);
    fam_collect(t, a->hdef, TDX_SRC_NUMBER, &nums);
    if (gidx->kind == TDX_SRC_NAME) {
        /* a named grid: its assignment and this launch must be its only uses */
        size_t uses = 0;
        for (size_t i = 0; i < names.len; i++)
            uses += strcmp(((tdx_src_node *)names.items[i])->name, gidx->name) == 0;
        if (uses != 2)
            return 0;
    }
    const char *meta = "META";
    if (g->kind == TDX_SRC_LAMBDA) {
        tdx_src_node *p = tdx_src_next(g, TDX_SRC_R_PARAM, NULL);
        if (!p || !p->name || tdx_src_next(g, TDX_SRC_R_PARAM, p))
            return 0;
        meta = p->name;
    }
    tdx_rw_edit ed[32];
    size_t ne = 0;
    for (size_t i = 0; i < nums.len; i++) {
        tdx_src_node *n = nums.items[i];
        long long v;
        if (tdx_src_int_value(t->m, n, &v) != TDX_OK)
            continue;
        int matches = 0, own = 0;
        for (size_t k = 0; k < a->nb; k++) {
            matches |= a->b[k].v == v;
            own |= a->b[k].lit == n;
        }
        if (!matches || own)
            continue;
        if (inside(n, a->warps) || inside(n, a->stages))
            continue;
        if (in_other_launch(t, a->L, n))
            continue; /* another launch's own value, which it keeps */
        if (!inside(n, g))
            return 0; /* the block value sizes something else too */
        at_block *b = grid_block_of(t, a, n, v);
        if (!b || ne >= 32)
            return 0;
        ed[ne].start = n->start - g->start;
        ed[ne].end = n->end - g->start;
        ed[ne].text = tdx_arena_printf(&t->arena, "%s['%s']", meta, b->name);
        ne++;
    }
    for (size_t i = 0; i < names.len; i++) {
        tdx_src_node *n = names.items[i];
        for (size_t k = 0; k < a->nb; k++) {
            const at_block *b = &a->b[k];
            if (!b->var || strcmp(b->var, n->name) != 0)
                continue;
            if (n == tdx_src_kid(b->kw, TDX_SRC_R_VALUE))
                continue;
            if (n->role == TDX_SRC_R_TARGET && n->parent && n->parent->kind == TDX_SRC_ASSIGN &&
                tdx_src_kid(n->parent, TDX_SRC_R_VALUE) == b->lit)
                continue;
            if (!inside(n, g) || ne >= 32)
                return 0;
            ed[ne].start = n->start - g->start;
            ed[ne].end = n->end - g->start;
            ed[ne].text = tdx_arena_printf(&t->arena, "%s['%s']", meta, b->name);
            ne++;
        }
    }
    if (!ne)
        return 1;
    size_t gl;
    const char *gt = tdx_src_text(t->m, g, &gl);
    tdx_buf body;
    tdx_buf_init(&body, 1u << 20);
    if (tdx_rw_apply(gt, gl, ed, ne, &body) != TDX_OK) {
        tdx_buf_free(&body);
        return 0;
    }
    int paren = g->kind == TDX_SRC_TUPLE && !(g->flags & TDX_SRC_F_PAREN);
    if (g->kind == TDX_SRC_LAMBDA)
        tdx_buf_add(out, body.data, body.len);
    else
        tdx_buf_printf(out, "lambda META: %s%.*s%s", paren ? "(" : "", (int)body.len, body.data,
                       paren ? ")" : "");
    tdx_buf_free(&body);
    return 1;
}

// Edits that drop a keyword from the launch with the comma before it; 0 when
// the keyword comes first (nothing before it to take the comma from).
static int drop_kwarg(fam_task *t, fam_edits *e, const tdx_src_node *L, const tdx_src_node *k)
{
    if (!k)
        return 1;
    if (k->index == 0 || L->kids[k->index - 1]->role == TDX_SRC_R_FUNC)
        return 0;
    fam_edit(t, e, L->kids[k->index - 1]->end, k->end, "");
    return 1;
}

// Append c to the list unless it is already there.
static void add_cfg(at_cfg *cs, size_t *n, at_cfg c)
{
    if (*n >= AT_MAX_CFGS)
        return;
    for (size_t i = 0; i < *n; i++)
        if (memcmp(&cs[i], &c, sizeof c) == 0)
            return;
    cs[(*n)++] = c;
}

// The config list: the launch's own values first, then neighbours; wide
// adds more. Tiles for tl.dot kernels are retune's: wgmma wants M >= 64 per
// CTA and num_warps % 4 == 0 (AccelerateMatmul.cpp), K=32 keeps fp32 tiles
// in shared memory.
static size_t at_configs(const at_site *a, int wide, at_cfg *cs)
{
    size_t n = 0;
    at_cfg cur;
    memset(&cur, 0, sizeof cur);
    for (size_t i = 0; i < a->nb; i++)
        cur.b[i] = a->b[i].v;
    cur.w = a->w;
    cur.s = a->s;
    add_cfg(cs, &n, cur);
    int tiles = 0;
    for (size_t i = 0; i < a->nb; i++)
        tiles += a->b[i].axis == 'M' || a->b[i].axis == 'N';
    if (a->has_dot && tiles >= 2) {
        static const int tab[][5] = {{128, 128, 64, 8, 3}, {64, 128, 64, 4, 4}, {128, 64, 32, 4, 4},
                                     {128, 128, 32, 4, 4}, {128, 256, 64, 8, 3}};
        size_t rows = wide ? 5 : 3;
        for (size_t r = 0; r < rows; r++) {
            at_cfg c = cur;
            for (size_t i = 0; i < a->nb; i++) {
                char ax = a->b[i].axis;
                c.b[i] = ax == 'M' ? tab[r][0] : ax == 'N' ? tab[r][1] : ax == 'K' ? tab[r][2] : c.b[i];
            }
            c.w = tab[r][3];
            c.s = tab[r][4];
            add_cfg(cs, &n, c);
        }
        return n;
    }
    /* blocks x2, x4 and /2 (wide: x8, x16, /4) under retune's caps */
    static const int num[] = {2, 4, 1, 8, 16, 1}, den[] = {1, 1, 2, 1, 1, 4};
    long long cap = a->nb > 1 ? 256 : 16384;
    for (size_t i = 0; i < a->nb; i++)
        for (size_t m = 0; m < (wide ? 6u : 3u); m++) {
            if (a->b[i].v <= 0 || a->b[i].v > cap) /* a huge literal: no product to form (overflow) */
                continue;
            long long nv = a->b[i].v * num[m];
            if (nv % den[m])
                continue;
            nv /= den[m];
            if (nv > cap || nv < 16)
                continue;
            at_cfg c = cur;
            c.b[i] = nv;
            if (nv >= 4096)
                c.w = nv >= 8192 ? 16 : 8; /* enough threads to cover the block */
            add_cfg(cs, &n, c);
        }
    at_cfg c = cur;
    c.w = cur.w == 8 ? 4 : 8;
    add_cfg(cs, &n, c);
    if (wide) {
        c.w = 2;
        add_cfg(cs, &n, c);
    }
    if (a->has_loop) /* stages only matter to loops the pipeliner can overlap */
        for (long long s = 2; s <= 4; s++) {
            c = cur;
            c.s = s;
            add_cfg(cs, &n, c);
        }
    return n;
}

// Emit one candidate for a site with the small or the wide config list.
static tdx_status at_emit(fam_task *t, at_site *a, tdx_src_node *g, const tdx_buf *grid, int wide,
                          tdx_rw_emit_fn emit, void *ud)
{
    fam_edits e = {0};
    for (size_t i = 0; i < a->nb; i++)
        if (!drop_kwarg(t, &e, a->L, a->b[i].kw))
            return TDX_OK;
    if (!drop_kwarg(t, &e, a->L, a->warps) || !drop_kwarg(t, &e, a->L, a->stages))
        return TDX_OK;
    if (grid->len)
        fam_edit(t, &e, g->start, g->end, tdx_buf_str(grid));
    at_cfg cs[AT_MAX_CFGS];
    size_t n = at_configs(a, wide, cs);
    int ind = a->kdef->col - 1;
    tdx_buf d;
    tdx_buf_init(&d, 1u << 20);
    tdx_buf_printf(&d, "@triton.autotune(\n%*s    configs=[\n", ind, "");
    for (size_t c = 0; c < n; c++) {
        tdx_buf_printf(&d, "%*s        triton.Config({", ind, "");
        for (size_t i = 0; i < a->nb; i++)
            tdx_buf_printf(&d, "%s'%s': %lld", i ? ", " : "", a->b[i].name, cs[c].b[i]);
        tdx_buf_printf(&d, "}, num_warps=%lld, num_stages=%lld),\n", cs[c].w, cs[c].s);
    }
    tdx_buf_printf(&d, "%*s    ],\n%*s    key=[", ind, "", ind, "");
    for (size_t k = 0; k < a->nkeys; k++)
        tdx_buf_printf(&d, "%s'%s'", k ? ", " : "", a->keys[k]);
    tdx_buf_printf(&d, "],\n%*s)\n%*s", ind, "", ind, "");
    fam_edit(t, &e, a->kdef->start, a->kdef->start, tdx_buf_str(&d));
    tdx_buf_free(&d);
    char sum[256];
    snprintf(sum, sizeof sum, "%s: @triton.autotune over %zu configs (%s first) keyed on %zu size argument%s",
             a->kdef->name, n, "the launch's own", a->nkeys, a->nkeys == 1 ? "" : "s");
    return fam_emit(t, &e, emit, ud, "autotune", sum);
}

tdx_status fam_autotune(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t li = 0; li < t->launches.len && !st; li++) {
        at_site a;
        tdx_src_node *L = t->launches.items[li];
        /* the pointer kernel beside a descriptor copy does not run on the
         * timed inputs; the copy's tiles are its descriptors' blocks too,
         * fixed when launch builds them, before any config is chosen */
        if (fam_tma_fallback(t, L) || fam_passes_descriptors(L) || !at_site_of(t, L, &a))
            continue;
        tdx_src_node *g = NULL;
        tdx_buf grid;
        tdx_buf_init(&grid, 1u << 20);
        /* the wide list first: it holds every config of the narrow one and
         * retune's far ones (blocks x8 and x16 with more warps), so the one
         * autotune candidate a short round tries covers both; the narrow
         * list, quicker to tune, second */
        if (at_grid(t, &a, &g, &grid)) {
            st = at_emit(t, &a, g, &grid, 1, emit, ud);
            if (!st)
                st = at_emit(t, &a, g, &grid, 0, emit, ud);
        }
        tdx_buf_free(&grid);
    }
    return st;
}
