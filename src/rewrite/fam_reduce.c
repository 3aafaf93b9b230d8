/* single-pass-reduction: a kernel that walks a row in several loops (max,
 * sum, write; mean, variance, write) reads the row from global memory once
 * per loop. No Triton pass merges loads across scf.for loops, so each loop
 * is its own ld.global of the whole row (LoadStoreOpToLLVM.cpp). Two
 * rewrites remove passes:
 *   (a) one block: BLOCK = next_power_of_2(n) computed at the launch, every
 *       loop straightened into its single iteration, and the row loaded once
 *       into registers and reused by every pass;
 *   (b) online: the maximum and the sum of exponentials in one loop with the
 *       sum rescaled when the maximum grows (Milakov & Gimelshein 2018), or
 *       the sum and the sum of squares in one loop for mean and variance;
 *       the final write pass stays.
 * The passes are recognised structurally: consecutive `for` loops over the
 * same range that load the same pointer under the same mask. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rewrite/fam_common.h"

enum { MAX_PASSES = 8, ONE_BLOCK_MAX = 32768 };

/* The loop passes of one kernel over one row. */
typedef struct passes {
    tdx_src_node *def;
    tdx_src_node *loop[MAX_PASSES]; /* FOR statements directly in def's body */
    tdx_src_node *load[MAX_PASSES]; /* the shared tl.load call in each */
    size_t n;
} passes;

/* ---- small helpers ------------------------------------------------------ */

static int is_call_of(const tdx_src_node *n, const char *dotted)
{
    return n && n->kind == TDX_SRC_CALL && tdx_src_is_dotted(tdx_src_call_func(n), dotted);
}

/* Argument i of a call, or its keyword `kw` when not passed by position. */
static tdx_src_node *call_arg(const tdx_src_node *call, size_t i, const char *kw)
{
    tdx_src_node *a = tdx_src_call_arg(call, i);
    return a ? a : tdx_src_call_kwarg(call, kw);
}

/* The direct child of owner's body that contains n, or NULL. */
static tdx_src_node *body_stmt(tdx_src_node *owner, tdx_src_node *n)
{
    for (; n && n->parent; n = n->parent)
        if (n->parent == owner)
            return n->role == TDX_SRC_R_BODY ? n : NULL;
    return NULL;
}

/* The value of the last `name = value` directly in owner's body before the
 * byte offset `before`, or NULL. */
static tdx_src_node *local_value(tdx_src_node *owner, const char *name, size_t before)
{
    tdx_src_node *v = NULL;
    for (tdx_src_node *s = tdx_src_next(owner, TDX_SRC_R_BODY, NULL); s && s->start < before;
         s = tdx_src_next(owner, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN || tdx_src_count(s, TDX_SRC_R_TARGET) != 1)
            continue;
        if (tdx_src_is_name(tdx_src_kid(s, TDX_SRC_R_TARGET), name))
            v = tdx_src_kid(s, TDX_SRC_R_VALUE);
    }
    return v;
}

static void add_nows(tdx_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' && s[i] != '\\')
            tdx_buf_addc(b, s[i]);
}

static int is_operator(const tdx_src_node *n)
{
    return n->kind == TDX_SRC_BINOP || n->kind == TDX_SRC_UNARYOP || n->kind == TDX_SRC_COMPARE ||
           n->kind == TDX_SRC_BOOLOP || n->kind == TDX_SRC_IFEXP || n->kind == TDX_SRC_LAMBDA ||
           n->kind == TDX_SRC_NAMEDEXPR;
}

/* The text of n without whitespace, each name that owner's body assigns
 * before the use replaced by its value: two loops that compute `offs` and
 * `x` the same way give the same text for `tl.load(x_row + offs)`. */
static void canon_rec(const fam_task *t, tdx_src_node *owner, const tdx_src_node *n, tdx_buf *b,
                      int depth)
{
    if (owner && tdx_src_is_name(n, NULL) && depth < 8) {
        tdx_src_node *v = local_value(owner, n->name, n->start);
        if (v) {
            /* parenthesised only where an operator could bind differently */
            int paren = is_operator(v) && n->parent && is_operator(n->parent);
            if (paren)
                tdx_buf_addc(b, '(');
            canon_rec(t, owner, v, b, depth + 1);
            if (paren)
                tdx_buf_addc(b, ')');
            return;
        }
    }
    size_t pos = n->start;
    for (uint32_t i = 0; i < n->nkids; i++) {
        const tdx_src_node *k = n->kids[i];
        add_nows(b, t->src + pos, k->start - pos);
        canon_rec(t, owner, k, b, depth);
        pos = k->end;
    }
    add_nows(b, t->src + pos, n->end - pos);
}

/* canon_rec into an arena string ("" for NULL). */
static char *canon(fam_task *t, tdx_src_node *owner, const tdx_src_node *n)
{
    if (!n)
        return "";
    tdx_buf b;
    tdx_buf_init(&b, 1u << 20);
    canon_rec(t, owner, n, &b, 0);
    char *s = tdx_arena_strdup(&t->arena, tdx_buf_str(&b));
    tdx_buf_free(&b);
    return s ? s : "";
}

/* Non-zero when a statement of def's body before `before` assigns name:
 * the name is carried into a loop that starts at `before`. */
static int assigned_before(tdx_src_node *def, const char *name, size_t before)
{
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s && s->start < before;
         s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN && s->kind != TDX_SRC_AUGASSIGN && s->kind != TDX_SRC_ANNASSIGN)
            continue;
        for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg))
            if (tdx_src_is_name(tg, name))
                return 1;
    }
    return 0;
}

/* Non-zero when the loop's body stores, breaks, or assigns a name carried in
 * from before the loop other than `allowed`. */
static int loop_has_effects(fam_task *t, tdx_src_node *def, tdx_src_node *loop, const char *allowed)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, loop, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        char *d = tdx_src_dotted(tdx_src_call_func(calls.items[i]), &t->arena);
        if (d && (strcmp(d, "tl.store") == 0 || strncmp(d, "tl.atomic_", 10) == 0))
            return 1;
    }
    for (tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s;
         s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_ASSIGN && s->kind != TDX_SRC_AUGASSIGN && s->kind != TDX_SRC_ANNASSIGN)
            return 1; /* nested blocks, break, continue: leave the kernel alone */
        for (tdx_src_node *tg = tdx_src_next(s, TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(s, TDX_SRC_R_TARGET, tg)) {
            if (!tdx_src_is_name(tg, NULL))
                return 1;
            if ((!allowed || strcmp(tg->name, allowed) != 0) && assigned_before(def, tg->name, loop->start))
                return 1;
        }
    }
    return 0;
}

/* range(start, stop, step) or tl.range(...) of a loop, 3 positional args. */
static int loop_range(const tdx_src_node *loop, tdx_src_node **start, tdx_src_node **stop,
                      tdx_src_node **step)
{
    tdx_src_node *it = tdx_src_kid(loop, TDX_SRC_R_ITER);
    if (!it || it->kind != TDX_SRC_CALL || tdx_src_call_nargs(it) != 3)
        return 0;
    tdx_src_node *fn = tdx_src_call_func(it);
    if (!tdx_src_is_dotted(fn, "range") && !tdx_src_is_dotted(fn, "tl.range"))
        return 0;
    *start = tdx_src_call_arg(it, 0);
    *stop = tdx_src_call_arg(it, 1);
    *step = tdx_src_call_arg(it, 2);
    return 1;
}

/* The first tl.load in loop whose pointer and mask read as key, or NULL. */
static tdx_src_node *load_with_key(fam_task *t, tdx_src_node *loop, const char *key)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, loop, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        if (!is_call_of(c, "tl.load") || !call_arg(c, 0, "pointer"))
            continue;
        char *k = tdx_arena_printf(&t->arena, "%s|%s", canon(t, loop, call_arg(c, 0, "pointer")),
                                   canon(t, loop, call_arg(c, 1, "mask")));
        if (k && strcmp(k, key) == 0)
            return c;
    }
    return NULL;
}

/* Loops directly in the kernel body, consecutive (only simple statements
 * between them), over the same range with the same variable, each loading
 * the same pointer under the same mask as the first: the passes over a row. */
static int find_passes(fam_task *t, tdx_src_node *def, passes *out)
{
    memset(out, 0, sizeof *out);
    out->def = def;
    tdx_src_node *run[MAX_PASSES];
    size_t nrun = 0;
    const char *iter0 = NULL, *var0 = NULL;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL);; s = tdx_src_next(def, TDX_SRC_R_BODY, s)) {
        int simple = s && (s->kind == TDX_SRC_ASSIGN || s->kind == TDX_SRC_AUGASSIGN ||
                           s->kind == TDX_SRC_ANNASSIGN || s->kind == TDX_SRC_EXPR_STMT ||
                           s->kind == TDX_SRC_PASS);
        if (simple)
            continue;
        tdx_src_node *tg = s && s->kind == TDX_SRC_FOR ? tdx_src_kid(s, TDX_SRC_R_TARGET) : NULL;
        const char *iter = tg ? canon(t, NULL, tdx_src_kid(s, TDX_SRC_R_ITER)) : NULL;
        if (tg && tdx_src_is_name(tg, NULL) && nrun > 0 && nrun < MAX_PASSES && strcmp(iter, iter0) == 0 &&
            strcmp(tg->name, var0) == 0) {
            run[nrun++] = s;
            continue;
        }
        /* the run ends here: does it load one pointer in every loop? */
        if (nrun >= 2) {
            tdx_ptrvec calls = {0};
            fam_collect(t, run[0], TDX_SRC_CALL, &calls);
            for (size_t i = 0; i < calls.len; i++) {
                tdx_src_node *c = calls.items[i];
                if (!is_call_of(c, "tl.load") || !call_arg(c, 0, "pointer"))
                    continue;
                char *key = tdx_arena_printf(&t->arena, "%s|%s", canon(t, run[0], call_arg(c, 0, "pointer")),
                                             canon(t, run[0], call_arg(c, 1, "mask")));
                if (!key)
                    return 0;
                size_t n = 1;
                out->loop[0] = run[0];
                out->load[0] = c;
                for (; n < nrun; n++) {
                    tdx_src_node *ld = load_with_key(t, run[n], key);
                    if (!ld)
                        break;
                    out->loop[n] = run[n];
                    out->load[n] = ld;
                }
                if (n >= 2) {
                    out->n = n;
                    return 1;
                }
            }
        }
        if (!s)
            return 0;
        nrun = 0;
        if (tg && tdx_src_is_name(tg, NULL)) {
            run[nrun++] = s;
            iter0 = iter;
            var0 = tg->name;
        }
    }
}

/* The first statement of a loop body, when it starts on a line of its own. */
static tdx_src_node *first_body_stmt(const tdx_src_node *loop)
{
    tdx_src_node *b = tdx_src_kid(loop, TDX_SRC_R_BODY);
    return b && b->line > loop->line ? b : NULL;
}

/* The loop's body lines [start of the first statement's line, end of loop)
 * with the edits that fall inside applied, each line dedented by `dedent`
 * columns; NULL when an edit does not fit. */
static char *body_text(fam_task *t, const tdx_src_node *loop, const fam_edits *e, int dedent)
{
    tdx_src_node *b0 = first_body_stmt(loop);
    if (!b0)
        return NULL;
    size_t rs = fam_line_start(t, b0->start), re = loop->end;
    tdx_rw_edit items[64];
    size_t n = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (e->items[i].start < rs || e->items[i].end > re)
            continue;
        items[n] = e->items[i];
        items[n].start -= rs;
        items[n].end -= rs;
        n++;
    }
    tdx_buf b, out;
    tdx_buf_init(&b, 16u << 20);
    tdx_buf_init(&out, 16u << 20);
    char *res = NULL;
    if (tdx_rw_apply(t->src + rs, re - rs, items, n, &b) == TDX_OK) {
        const char *p = tdx_buf_str(&b), *end = p + b.len;
        while (p < end) {
            for (int k = 0; k < dedent && p < end && *p == ' '; k++)
                p++;
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *stop = nl ? nl + 1 : end;
            tdx_buf_add(&out, p, (size_t)(stop - p));
            p = stop;
        }
        res = tdx_arena_strdup(&t->arena, tdx_buf_str(&out));
    }
    tdx_buf_free(&b);
    tdx_buf_free(&out);
    return res;
}

/* Bind the first pass's shared load to `_tdx_row` (a statement inserted
 * before the one that loads) and make every later pass reuse it: the row is
 * read from memory once. A later load with another `other` keeps its
 * masked-off value through tl.where. Passes [0, to) are edited. */
static int reuse_row(fam_task *t, const passes *p, size_t to, fam_edits *e)
{
    tdx_src_node *ld0 = p->load[0];
    tdx_src_node *st0 = body_stmt(p->loop[0], ld0);
    if (!st0)
        return 0;
    size_t l0;
    const char *lt = tdx_src_text(t->m, ld0, &l0);
    char *ins = tdx_arena_printf(&t->arena, "_tdx_row = %.*s\n%*s", (int)l0, lt, st0->col - 1, "");
    fam_edit(t, e, st0->start, st0->start, ins);
    fam_edit(t, e, ld0->start, ld0->end, "_tdx_row");
    const char *other0 = canon(t, p->loop[0], call_arg(ld0, 2, "other"));
    for (size_t i = 1; i < to; i++) {
        tdx_src_node *ld = p->load[i];
        tdx_src_node *mask = call_arg(ld, 1, "mask"), *other = call_arg(ld, 2, "other");
        if (!mask || !other || strcmp(canon(t, p->loop[i], other), other0) == 0) {
            fam_edit(t, e, ld->start, ld->end, "_tdx_row");
            continue;
        }
        size_t ml, ol;
        const char *mt = tdx_src_text(t->m, mask, &ml), *ot = tdx_src_text(t->m, other, &ol);
        fam_edit(t, e, ld->start, ld->end,
                 tdx_arena_printf(&t->arena, "tl.where(%.*s, _tdx_row, %.*s)", (int)ml, mt, (int)ol, ot));
    }
    return 1;
}

static const char *kernel_name(const tdx_src_node *def)
{
    return def->name ? def->name : "kernel";
}

/* ---- (a) the whole row in one block ------------------------------------- */

/* Variant w of the one-block rewrite (0: up to 16 warps, 1: up to 32). */
static tdx_status one_block(fam_task *t, const passes *p, size_t w, tdx_rw_emit_fn emit, void *ud)
{
    tdx_src_node *start, *stop, *step;
    if (!loop_range(p->loop[0], &start, &stop, &step) || !tdx_src_is_name(stop, NULL) || !tdx_src_is_name(step, NULL))
        return TDX_OK;
    tdx_src_node *np = tdx_src_param(p->def, stop->name), *bp = tdx_src_param(p->def, step->name);
    if (!np || tdx_src_param_is_constexpr(np) || !bp || !tdx_src_param_is_constexpr(bp) || fam_self_tuned(p->def))
        return TDX_OK; /* a tuned kernel's decorator passes BLOCK and num_warps itself */
    /* each launch sets BLOCK from the row length it passes */
    tdx_ptrvec launches = {0};
    for (size_t i = 0; i < t->launches.len; i++)
        if (fam_launched_kernel(t, t->launches.items[i]) == p->def)
            tdx_ptrvec_push(&t->arena, &launches, t->launches.items[i]);
    if (launches.len == 0)
        return TDX_OK;
    /* a row longer than 32 K elements does not fit the registers of one
     * program (64 K 32-bit registers per SM): at the bench shape such rows
     * ran slower in one block (log_softmax_long, 50257 elements: 0.59 vs
     * 0.43 ms) while 32 K elements ran 2x faster (softmax_long) */
    for (size_t li = 0; li < launches.len; li++) {
        int kw;
        long long n = 0;
        tdx_src_node *na = fam_launch_arg(launches.items[li], p->def, stop->name, &kw);
        if (na && fam_bench_int(t, launches.items[li], na, &n) && n > ONE_BLOCK_MAX)
            return TDX_OK;
    }
    /* warps grow with the block so that each thread keeps a few dozen
     * values in registers (64K 32-bit registers per SM, 255 per thread) */
    static const struct {
        int per_warp, cap;
    } warps[] = {{512, 16}, {1024, 32}};
    if (w >= sizeof warps / sizeof warps[0])
        return TDX_OK;
    {
        fam_edits e = {0};
        if (!reuse_row(t, p, p->n, &e))
            return TDX_OK;
        fam_edits loops = {0};
        for (size_t i = 0; i < p->n; i++) {
            tdx_src_node *L = p->loop[i], *b0 = first_body_stmt(L), *s0, *s1, *s2;
            if (!b0 || !loop_range(L, &s0, &s1, &s2))
                return TDX_OK;
            char *body = body_text(t, L, &e, b0->col - L->col);
            if (!body)
                return TDX_OK;
            size_t vl, sl;
            const char *vt = tdx_src_text(t->m, tdx_src_kid(L, TDX_SRC_R_TARGET), &vl);
            const char *stt = tdx_src_text(t->m, s0, &sl);
            fam_edit(t, &loops, L->start, L->end,
                     tdx_arena_printf(&t->arena, "%.*s = %.*s\n%s", (int)vl, vt, (int)sl, stt, body));
        }
        for (size_t li = 0; li < launches.len; li++) {
            tdx_src_node *L = launches.items[li];
            int kw, nkw;
            tdx_src_node *n = fam_launch_arg(L, p->def, stop->name, &nkw);
            tdx_src_node *b = fam_launch_arg(L, p->def, step->name, &kw);
            if (!n || nkw)
                return TDX_OK;
            size_t nl;
            const char *nt = tdx_src_text(t->m, n, &nl);
            char *blk = tdx_arena_printf(&t->arena, "triton.next_power_of_2(%.*s)", (int)nl, nt);
            if (b && !kw)
                fam_edit(t, &loops, b->start, b->end, blk);
            else
                fam_set_kwarg(t, &loops, L, step->name, blk);
            fam_set_kwarg(t, &loops, L, "num_warps",
                          tdx_arena_printf(&t->arena, "min(%d, max(4, triton.next_power_of_2(%.*s) // %d))",
                                           warps[w].cap, (int)nl, nt, warps[w].per_warp));
        }
        char sum[256];
        snprintf(sum, sizeof sum,
                 "%s: the row in one block (%s = next_power_of_2(%s), up to %d warps), loaded once "
                 "for %zu passes",
                 kernel_name(p->def), step->name, stop->name, warps[w].cap, p->n);
        return fam_emit(t, &loops, emit, ud, "single-pass-reduction", sum);
    }
}

/* ---- (b) online statistics ---------------------------------------------- */

/* `m = tl.maximum(m, tl.max(...))` in the loop body: the running maximum. */
static tdx_src_node *max_update(tdx_src_node *loop, const char **m)
{
    tdx_src_node *found = NULL;
    for (tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (s->kind != TDX_SRC_ASSIGN || !tdx_src_is_name(tg, NULL) || !is_call_of(v, "tl.maximum") ||
            tdx_src_call_nargs(v) != 2)
            continue;
        tdx_src_node *a = tdx_src_call_arg(v, 0), *b = tdx_src_call_arg(v, 1);
        if (tdx_src_is_name(b, tg->name)) {
            tdx_src_node *x = a;
            a = b;
            b = x;
        }
        if (!tdx_src_is_name(a, tg->name) || !is_call_of(b, "tl.max"))
            continue;
        if (found)
            return NULL;
        found = s;
        *m = tg->name;
    }
    return found;
}

/* `s += tl.sum(X, ...)` in the loop body: *sum gets the call. */
static tdx_src_node *sum_update(tdx_src_node *loop, tdx_src_node **sum)
{
    tdx_src_node *found = NULL;
    for (tdx_src_node *s = tdx_src_next(loop, TDX_SRC_R_BODY, NULL); s; s = tdx_src_next(loop, TDX_SRC_R_BODY, s)) {
        if (s->kind != TDX_SRC_AUGASSIGN)
            continue;
        tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (found || s->op != TDX_OP_PLUS || !tdx_src_is_name(tg, NULL) || !is_call_of(v, "tl.sum") ||
            !tdx_src_call_arg(v, 0))
            return NULL;
        found = s;
        *sum = v;
    }
    return found;
}

/* Non-zero when the exponential-like call g reads only `x - m` (the one
 * subtraction *sub) and module names: then g(x - m_new) * g(m - m_new)
 * rescales exactly, for tl.exp and for tl.exp2 of a scaled difference. */
static int exp_of_diff(fam_task *t, tdx_src_node *g, const char *m, tdx_src_node **sub)
{
    if (!is_call_of(g, "tl.exp") && !is_call_of(g, "tl.exp2") && !is_call_of(g, "tl.math.exp") &&
        !is_call_of(g, "tl.math.exp2"))
        return 0;
    tdx_ptrvec bins = {0}, names = {0};
    fam_collect(t, g, TDX_SRC_BINOP, &bins);
    *sub = NULL;
    for (size_t i = 0; i < bins.len; i++) {
        tdx_src_node *b = bins.items[i];
        if (b->op == TDX_OP_MINUS && tdx_src_is_name(tdx_src_kid(b, TDX_SRC_R_RIGHT), m)) {
            if (*sub)
                return 0;
            *sub = b;
        }
    }
    if (!*sub || tdx_src_count_name(g, m) != 1)
        return 0;
    fam_collect(t, g, TDX_SRC_NAME, &names);
    for (size_t i = 0; i < names.len; i++) {
        tdx_src_node *nm = names.items[i];
        int in_sub = nm->start >= (*sub)->start && nm->end <= (*sub)->end;
        int module = nm->parent && nm->parent->kind == TDX_SRC_ATTRIBUTE && nm->role == TDX_SRC_R_VALUE;
        if (!in_sub && !module)
            return 0;
    }
    return 1;
}

/* Softmax and its kin: a max pass then a pass summing exp(x - max) become
 * one loop carrying the maximum and a sum rescaled by exp(m_old - m_new). */
static tdx_status online_softmax(fam_task *t, const passes *p, tdx_rw_emit_fn emit, void *ud)
{
    tdx_src_node *L0 = p->loop[0], *L1 = p->loop[1];
    const char *m = NULL;
    tdx_src_node *mu = max_update(L0, &m), *sumcall = NULL, *su = sum_update(L1, &sumcall), *sub = NULL;
    if (!mu || !su || sum_update(L0, &(tdx_src_node *){NULL}))
        return TDX_OK;
    const char *s = tdx_src_kid(su, TDX_SRC_R_TARGET)->name;
    tdx_src_node *g = tdx_src_call_arg(sumcall, 0);
    if (!exp_of_diff(t, g, m, &sub) || !assigned_before(p->def, m, L0->start) ||
        !assigned_before(p->def, s, L1->start) || tdx_src_count_name(L0, m) != 2 || tdx_src_count_name(L1, m) != 1 ||
        tdx_src_count_name(L0, s) != 0 || loop_has_effects(t, p->def, L0, m) ||
        loop_has_effects(t, p->def, L1, s))
        return TDX_OK;
    /* statements between the passes move before the fused loop: they must
     * not read what the first pass computes */
    for (tdx_src_node *b = tdx_src_next(p->def, TDX_SRC_R_BODY, L0); b && b != L1;
         b = tdx_src_next(p->def, TDX_SRC_R_BODY, b)) {
        if (tdx_src_count_name(b, m))
            return TDX_OK;
        for (tdx_src_node *x = tdx_src_next(L0, TDX_SRC_R_BODY, NULL); x; x = tdx_src_next(L0, TDX_SRC_R_BODY, x))
            for (tdx_src_node *tg = tdx_src_next(x, TDX_SRC_R_TARGET, NULL); tg; tg = tdx_src_next(x, TDX_SRC_R_TARGET, tg))
                if (tdx_src_is_name(tg, NULL) && tdx_src_count_name(b, tg->name))
                    return TDX_OK;
    }
    tdx_src_node *b0 = first_body_stmt(L0), *b1 = first_body_stmt(L1);
    if (!b0 || !b1 || b0->col != b1->col || L0->col != L1->col)
        return TDX_OK;
    fam_edits e = {0};
    if (!reuse_row(t, p, 2, &e))
        return TDX_OK;
    fam_edit(t, &e, tdx_src_kid(mu, TDX_SRC_R_TARGET)->start, tdx_src_kid(mu, TDX_SRC_R_TARGET)->end, "_tdx_mn");
    /* s += tl.sum(g(x - m)) -> s = s * g(m - m_new) + tl.sum(g(x - m_new)) */
    size_t gl;
    const char *gt = tdx_src_text(t->m, g, &gl);
    size_t a = sub->start - g->start, z = sub->end - g->start;
    char *rescale = tdx_arena_printf(&t->arena, "%.*s(%s - _tdx_mn)%.*s", (int)a, gt, m, (int)(gl - z), gt + z);
    fam_edit(t, &e, su->start, sumcall->start, tdx_arena_printf(&t->arena, "%s = %s * %s + ", s, s, rescale));
    tdx_src_node *mr = tdx_src_kid(sub, TDX_SRC_R_RIGHT);
    fam_edit(t, &e, mr->start, mr->end, "_tdx_mn");
    char *body0 = body_text(t, L0, &e, 0), *body1 = body_text(t, L1, &e, 0);
    if (!body0 || !body1)
        return TDX_OK;
    /* the fused loop replaces [L0, L1); what lay between goes first */
    size_t bs = L0->end;
    while (bs < t->len && t->src[bs] != '\n')
        bs++;
    size_t be = fam_line_start(t, L1->start);
    const char *between = bs < be ? t->src + bs + 1 : "";
    size_t blen = bs < be ? be - bs - 1 : 0;
    while (blen && (*between == ' ' || *between == '\t'))
        between++, blen--;
    size_t hl = fam_line_start(t, b0->start) - L0->start;
    char *text = tdx_arena_printf(&t->arena, "%.*s%*s%.*s%s\n%s\n%*s%s = _tdx_mn", (int)blen, between,
                                  blen ? L0->col - 1 : 0, "", (int)hl, t->src + L0->start, body0, body1,
                                  b0->col - 1, "", m);
    fam_edits fe = {0};
    fam_edit(t, &fe, L0->start, L1->end, text);
    char sum[256];
    snprintf(sum, sizeof sum, "%s: online %s and rescaled %s in one pass (%zu passes over the row -> %zu)",
             kernel_name(p->def), m, s, p->n, p->n - 1);
    return fam_emit(t, &fe, emit, ud, "single-pass-reduction", sum);
}

/* The deviation d in `tl.sum(d * d)`: both factors read the same. */
static tdx_src_node *square_of(fam_task *t, tdx_src_node *loop, tdx_src_node *q)
{
    if (!q || q->kind != TDX_SRC_BINOP || q->op != TDX_OP_STAR)
        return NULL;
    tdx_src_node *l = tdx_src_kid(q, TDX_SRC_R_LEFT), *r = tdx_src_kid(q, TDX_SRC_R_RIGHT);
    if (!l || !r || strcmp(canon(t, loop, l), canon(t, loop, r)) != 0)
        return NULL;
    return tdx_src_is_name(l, NULL) ? local_value(loop, l->name, l->start) : l;
}

/* Mean and variance: a pass summing x then a pass summing (x - mean)^2
 * become one pass summing x and x*x; the variance sum is then
 * sum(x*x) - mean * sum(x), exact when mean = sum(x) / n. */
static tdx_status online_moments(fam_task *t, const passes *p, tdx_rw_emit_fn emit, void *ud)
{
    tdx_src_node *L0 = p->loop[0], *L1 = p->loop[1], *c0 = NULL, *c1 = NULL;
    tdx_src_node *u0 = sum_update(L0, &c0), *u1 = sum_update(L1, &c1);
    if (!u0 || !u1)
        return TDX_OK;
    const char *a = tdx_src_kid(u0, TDX_SRC_R_TARGET)->name, *bv = tdx_src_kid(u1, TDX_SRC_R_TARGET)->name;
    if (!assigned_before(p->def, a, L0->start) || !assigned_before(p->def, bv, L1->start) ||
        loop_has_effects(t, p->def, L0, a) || loop_has_effects(t, p->def, L1, bv))
        return TDX_OK;
    /* mean = a / n between the passes */
    const char *mean = NULL;
    for (tdx_src_node *s = tdx_src_next(p->def, TDX_SRC_R_BODY, L0); s && s != L1;
         s = tdx_src_next(p->def, TDX_SRC_R_BODY, s)) {
        tdx_src_node *tg = tdx_src_kid(s, TDX_SRC_R_TARGET), *v = tdx_src_kid(s, TDX_SRC_R_VALUE);
        if (s->kind == TDX_SRC_ASSIGN && tdx_src_is_name(tg, NULL) && v && v->kind == TDX_SRC_BINOP &&
            v->op == TDX_OP_SLASH && tdx_src_is_name(tdx_src_kid(v, TDX_SRC_R_LEFT), a))
            mean = tg->name;
    }
    tdx_src_node *d = square_of(t, L1, tdx_src_call_arg(c1, 0));
    if (!mean || !d)
        return TDX_OK;
    /* d is x - mean, or tl.where(mask, x - mean, 0) with the load's mask */
    tdx_src_node *dev = d;
    const char *mask1 = canon(t, L1, call_arg(p->load[1], 1, "mask"));
    if (is_call_of(d, "tl.where")) {
        double z = 1;
        tdx_src_node *zero = tdx_src_call_arg(d, 2);
        if (tdx_src_call_nargs(d) != 3 || strcmp(canon(t, L1, tdx_src_call_arg(d, 0)), mask1) != 0 ||
            !zero || tdx_src_number_value(t->m, zero, &z) != TDX_OK || z != 0)
            return TDX_OK;
        dev = tdx_src_call_arg(d, 1);
    } else if (mask1[0]) {
        return TDX_OK; /* masked-off lanes would add mean^2 each */
    }
    if (!dev || dev->kind != TDX_SRC_BINOP || dev->op != TDX_OP_MINUS ||
        !tdx_src_is_name(tdx_src_kid(dev, TDX_SRC_R_RIGHT), mean))
        return TDX_OK;
    tdx_src_node *x0 = tdx_src_call_arg(c0, 0), *y = tdx_src_kid(dev, TDX_SRC_R_LEFT);
    if (strcmp(canon(t, L0, x0), canon(t, L1, y)) != 0)
        return TDX_OK;
    int ind0 = L0->col - 1, indb = u0->col - 1;
    fam_edits e = {0};
    fam_edit(t, &e, L0->start, L0->start, tdx_arena_printf(&t->arena, "_tdx_sq = 0.0\n%*s", ind0, ""));
    size_t xl;
    const char *xt = tdx_src_text(t->m, x0, &xl);
    const char *S = t->src;
    fam_edit(t, &e, u0->start, u0->end,
             tdx_arena_printf(&t->arena,
                              "_tdx_v = %.*s\n%*s%.*s_tdx_v%.*s\n%*s_tdx_sq += %.*s_tdx_v * _tdx_v%.*s",
                              (int)xl, xt, indb, "", (int)(x0->start - u0->start), S + u0->start,
                              (int)(u0->end - x0->end), S + x0->end, indb, "",
                              (int)(x0->start - c0->start), S + c0->start, (int)(c0->end - x0->end),
                              S + x0->end));
    fam_edit(t, &e, L0->end, L0->end, tdx_arena_printf(&t->arena, "\n%*s_tdx_s1 = %s", ind0, "", a));
    fam_edit(t, &e, L1->start, L1->end,
             tdx_arena_printf(&t->arena, "%s += _tdx_sq - %s * _tdx_s1", bv, mean));
    char sum[256];
    snprintf(sum, sizeof sum, "%s: sum and sum of squares in one pass (%zu passes over the row -> %zu)",
             kernel_name(p->def), p->n, p->n - 1);
    return fam_emit(t, &e, emit, ud, "single-pass-reduction", sum);
}

tdx_status fam_single_pass(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        passes p;
        if (!find_passes(t, t->kernels.items[k], &p))
            continue;
        /* the two approaches first, then the second warp count of one
         * block: a round of two candidates tries both approaches (one block
         * won at 32 K elements a row and lost at 64 K, where the row no
         * longer fits the registers and the online pass is the one to try) */
        st = one_block(t, &p, 0, emit, ud);
        if (!st)
            st = online_softmax(t, &p, emit, ud);
        if (!st)
            st = online_moments(t, &p, emit, ud);
        if (!st)
            st = one_block(t, &p, 1, emit, ud);
    }
    return st;
}
