/* operand-layout: an fp32 tl.dot operand passed K-major.
 *
 * tl.dot on fp32 inputs runs as tf32, and Hopper's wgmma reads 32-bit
 * operands from shared memory only K-major. B of A @ B in row-major order is
 * N-contiguous, so the copy of each B tile into shared memory transposes it,
 * one 4-byte cp.async per element instead of one 16-byte copy per four. The
 * kernel reads its operands through strides it is given; the launch can hand
 * it a copy whose K axis is the contiguous one:
 *
 *     b = b.movedim(0, -1).contiguous().movedim(-1, 0)
 *
 * just before the launch statement (same shape, strides (1, K); the JIT then
 * specializes stride_bk == 1 as a constant, and the copies become 16 bytes).
 * The copy costs one read and one write of the tensor per call, inside the
 * timed launch.
 *
 * Which operands: tdx_km_mn_major_operands (model_operand.c) — fp32 inputs,
 * no ieee precision, the tile's K axis scaled by X.stride(i) and the other by
 * X.stride(j), i < j, for a tensor X passed by name that the kernel never
 * stores to. */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

/* The statement that holds node n (a child of a block), or NULL. */
static const tdx_src_node *statement_of(const tdx_src_node *n)
{
    while (n && n->parent) {
        if (n->role == TDX_SRC_R_BODY || n->role == TDX_SRC_R_ORELSE)
            return n;
        n = n->parent;
    }
    return NULL;
}

typedef struct bind_ud {
    const char *name;
    int found;
} bind_ud;

/* Walk visitor of binds(): a target of an assignment, a for or a with that
 * mentions the name. */
static int bind_visit(tdx_src_node *n, void *ud)
{
    bind_ud *b = ud;
    if (n->kind != TDX_SRC_ASSIGN && n->kind != TDX_SRC_AUGASSIGN && n->kind != TDX_SRC_ANNASSIGN &&
        n->kind != TDX_SRC_FOR && n->kind != TDX_SRC_WITHITEM)
        return 0;
    for (const tdx_src_node *tg = tdx_src_kid(n, TDX_SRC_R_TARGET); tg; tg = tdx_src_next(n, TDX_SRC_R_TARGET, tg))
        if (fam_mentions(tg, b->name)) {
            b->found = 1;
            return -1;
        }
    return 0;
}

/* Non-zero when statement st (or one inside it) binds name. */
static int binds(const tdx_src_node *st, const char *name)
{
    bind_ud b = {name, 0};
    tdx_src_walk((tdx_src_node *)st, bind_visit, &b);
    return b.found;
}

/* Reads of the tensor that the K-major copy leaves as they were. */
static const char *const same_in_copy[] = {"shape", "dtype", "device", "ndim", "size", "numel", "dim", NULL};

typedef struct use_ud {
    const char *name;
    int found;
} use_ud;

/* Walk visitor of uses(): a NAME that is not the value of one of
 * same_in_copy's attributes (b.shape reads the same of the copy; b.stride(0)
 * and b itself do not). */
static int use_visit(tdx_src_node *n, void *ud)
{
    use_ud *u = ud;
    if (n->kind != TDX_SRC_NAME || !n->name || strcmp(n->name, u->name) != 0)
        return 0;
    const tdx_src_node *p = n->parent;
    if (p && p->kind == TDX_SRC_ATTRIBUTE && p->name && tdx_src_kid(p, TDX_SRC_R_VALUE) == n)
        for (const char *const *a = same_in_copy; *a; a++)
            if (strcmp(p->name, *a) == 0)
                return 0;
    u->found = 1;
    return -1;
}

/* Non-zero when statement st uses name other than through same_in_copy. */
static int uses(const tdx_src_node *st, const char *name)
{
    use_ud u = {name, 0};
    tdx_src_walk((tdx_src_node *)st, use_visit, &u);
    return u.found;
}

/* A launch nested in a branch of its function (tensor-descriptors' launch
 * and its fallback under `if _tdx_d0 and _tdx_d1:`): the statement of the
 * function's body before which the copy serves every use of the tensor --
 * the first that uses more than its shape (the descriptors are made of the
 * copy, and both launches read it; `_, N = b.shape` stays above it, where
 * triage still reads the bench shape's N). NULL when a statement up to the
 * launch's binds the name again, or the name is not the function's
 * parameter (the copy could be overwritten, or come before its binding). */
static const tdx_src_node *nested_copy_point(const tdx_src_node *scope, const tdx_src_node *s, const char *name)
{
    const tdx_src_node *top = s;
    while (top && top->parent != scope)
        top = top->parent;
    if (!top || top->role != TDX_SRC_R_BODY || scope->kind != TDX_SRC_FUNCDEF || !tdx_src_param(scope, name))
        return NULL; /* the copy goes where the tensor is the function's parameter, bound once */
    const tdx_src_node *first = NULL;
    for (const tdx_src_node *st = tdx_src_next(scope, TDX_SRC_R_BODY, NULL); st;
         st = st == top ? NULL : tdx_src_next(scope, TDX_SRC_R_BODY, st)) {
        if (binds(st, name))
            return NULL;
        if (!first && uses(st, name))
            first = st;
    }
    return first;
}

tdx_status fam_operand_layout(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    const tdx_km_file *f = fam_model(t);
    if (!f)
        return TDX_OK;
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < f->kernels.len && !st; i++) {
        const tdx_km_kernel *k = f->kernels.items[i];
        tdx_km_mn_operand ops[4];
        size_t n = tdx_km_mn_major_operands(f, k, ops, 4);
        fam_edits e = {0};
        char sum[256] = "";
        size_t used = 0;
        for (size_t j = 0; j < n; j++) {
            const tdx_km_mn_operand *o = &ops[j];
            const tdx_src_node *s = statement_of(o->launch->call);
            if (s && s->parent != o->launch->scope)
                s = nested_copy_point(o->launch->scope, s, o->tensor->name);
            if (!s)
                continue; /* a launch nested where the tensor cannot be copied once before it */
            size_t ls = fam_line_start(t, s->start);
            int blank = 1;
            for (size_t p = ls; p < s->start; p++)
                blank &= t->src[p] == ' ' || t->src[p] == '\t';
            if (!blank)
                continue;
            /* one copy per tensor, even when both operands come from it */
            int dup = 0;
            for (size_t q = 0; q < j; q++)
                dup |= strcmp(ops[q].tensor->name, o->tensor->name) == 0;
            if (dup)
                continue;
            const char *x = o->tensor->name;
            char line[512];
            snprintf(line, sizeof line, "%.*s%s = %s.movedim(%lld, -1).contiguous().movedim(-1, %lld)\n",
                     (int)(s->start - ls), t->src + ls, x, x, o->k_dim, o->k_dim);
            fam_edit(t, &e, ls, ls, line);
            used += (size_t)snprintf(sum + used, used < sizeof sum ? sizeof sum - used : 0, "%s%s", used ? ", " : "", x);
            if (used >= sizeof sum)
                used = sizeof sum - 1;
        }
        if (!e.n)
            continue;
        char summary[384];
        snprintf(summary, sizeof summary, "%s: %s passed K-major (one copy at launch) for the tf32 dot",
                 k->name ? k->name : "kernel", sum);
        st = fam_emit(t, &e, emit, ud, "operand-layout", summary);
    }
    return st;
}
