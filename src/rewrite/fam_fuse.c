/* fuse-launches: two consecutive launches where the second kernel reads,
 * element by element, a tensor the first one writes and nothing else uses
 * become one kernel and one launch. Each launch costs a few microseconds and
 * the intermediate tensor makes a round trip through HBM (written, then read
 * back); fused, the value stays in registers.
 *
 * Only the plainest data flow is fused, where lanes provably match: both
 * kernels are straight-line code on the same 1-D grid; the first stores the
 * intermediate once at `T + O_a`, the second loads it once at `T + O_b`, and
 * O_a and O_b are the same expression once every local is replaced by its
 * definition and every parameter by the launch argument it receives (so
 * program p's lane l reads what program p's lane l wrote). The intermediate
 * is a torch.empty* local of the launching function used by nothing else.
 * The fused kernel runs the first body with the store kept in a variable,
 * then the second body (its names suffixed _b) with the load replaced by it. */
#include <stdio.h>
#include <string.h>

#include "rewrite/fam_common.h"

/* Statement kinds that make a kernel more than straight-line code. */
static int straight_line(fam_task *t, tdx_src_node *def)
{
    static const tdx_src_kind bad[] = {TDX_SRC_FOR, TDX_SRC_WHILE, TDX_SRC_IF, TDX_SRC_RETURN,
                                       TDX_SRC_TRY, TDX_SRC_WITH, TDX_SRC_IFEXP, TDX_SRC_LAMBDA};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tdx_ptrvec v = {0};
        fam_collect(t, def, bad[k], &v);
        if (v.len)
            return 0;
    }
    static const char *const scans[] = {"tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin",
                                        "tl.reduce", "tl.cumsum", "tl.cumprod", "tl.associative_scan",
                                        "tl.dot", "tl.num_programs", "tl.atomic_add", "tl.atomic_max",
                                        "tl.atomic_min", "tl.atomic_cas", "tl.atomic_xchg", NULL};
    if (fam_calls_any(def, scans) || fam_calls_helper(t, def, NULL))
        return 0; /* a helper could mix lanes */
    /* one 1-D program index */
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        if (!tdx_src_is_dotted(tdx_src_call_func(c), "tl.program_id"))
            continue;
        tdx_src_node *a = tdx_src_call_arg(c, 0);
        if (!a)
            a = tdx_src_call_kwarg(c, "axis");
        long long x;
        if (!a || tdx_src_int_value(t->m, a, &x) != TDX_OK || x != 0)
            return 0;
    }
    return 1;
}

/* The i-th PARAM of a def, or NULL. */
static tdx_src_node *param_at(const tdx_src_node *def, size_t i)
{
    size_t k = 0;
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(def, TDX_SRC_R_PARAM, p), k++)
        if (k == i)
            return p;
    return NULL;
}

/* The single top-level assignment of name in def, or NULL. */
static tdx_src_node *single_def(fam_task *t, tdx_src_node *def, const char *name)
{
    tdx_ptrvec as = {0}, aug = {0};
    fam_collect(t, def, TDX_SRC_ASSIGN, &as);
    fam_collect(t, def, TDX_SRC_AUGASSIGN, &aug);
    tdx_src_node *found = NULL;
    for (size_t i = 0; i < aug.len; i++) {
        tdx_src_node *tg = tdx_src_kid(aug.items[i], TDX_SRC_R_TARGET);
        if (tg && tg->kind == TDX_SRC_NAME && strcmp(tg->name, name) == 0)
            return NULL;
    }
    for (size_t i = 0; i < as.len; i++) {
        tdx_src_node *a = as.items[i];
        for (tdx_src_node *tg = tdx_src_next(a, TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(a, TDX_SRC_R_TARGET, tg)) {
            if (tg->kind != TDX_SRC_NAME || strcmp(tg->name, name) != 0)
                continue;
            if (found || tdx_src_count(a, TDX_SRC_R_TARGET) != 1 || a->parent != def)
                return NULL;
            found = a;
        }
    }
    return found;
}

/* Expression e of kernel def written without locals or parameters: locals
 * by their single definition, parameters by the launch argument they get.
 * 0 when a local is defined more than once (its value is not one thing). */
static int canon(fam_task *t, tdx_src_node *def, tdx_src_node *launch, tdx_src_node *e, tdx_buf *b, int depth)
{
    if (depth > 32)
        return 0;
    if (e->kind == TDX_SRC_NAME) {
        if (tdx_src_param(def, e->name)) {
            tdx_src_node *a = fam_launch_arg(launch, def, e->name, NULL);
            if (!a)
                return 0;
            size_t l;
            const char *s = tdx_src_text(t->m, a, &l);
            tdx_buf_adds(b, "<");
            tdx_buf_add(b, s, l);
            return tdx_buf_adds(b, ">") == TDX_OK;
        }
        if (fam_mentions(def, e->name) && e->parent) {
            tdx_src_node *d = single_def(t, def, e->name);
            if (d) {
                /* parentheses only where the value needs them, so that a
                 * local and the same expression written inline agree */
                tdx_src_node *v = tdx_src_kid(d, TDX_SRC_R_VALUE);
                int atom = v->kind == TDX_SRC_NAME || v->kind == TDX_SRC_CALL || v->kind == TDX_SRC_NUMBER ||
                           v->kind == TDX_SRC_ATTRIBUTE || v->kind == TDX_SRC_SUBSCRIPT;
                if (!atom)
                    tdx_buf_adds(b, "(");
                if (!canon(t, def, launch, v, b, depth + 1))
                    return 0;
                return atom || tdx_buf_adds(b, ")") == TDX_OK;
            }
            /* assigned somewhere but not once: not a fixed value */
            tdx_ptrvec as = {0};
            fam_collect(t, def, TDX_SRC_ASSIGN, &as);
            for (size_t i = 0; i < as.len; i++)
                if (fam_mentions(tdx_src_kid(as.items[i], TDX_SRC_R_TARGET), e->name))
                    return 0;
        }
        return tdx_buf_adds(b, e->name) == TDX_OK; /* a module name: tl, triton */
    }
    size_t pos = e->start;
    for (uint32_t i = 0; i < e->nkids; i++) {
        tdx_src_node *k = e->kids[i];
        tdx_buf_add(b, t->src + pos, k->start - pos);
        if (!canon(t, def, launch, k, b, depth + 1))
            return 0;
        pos = k->end;
    }
    return tdx_buf_add(b, t->src + pos, e->end - pos) == TDX_OK;
}

/* `P + E` or `E + P` with P the NAME name: E, else NULL. */
static tdx_src_node *offset_from(const tdx_src_node *addr, const char *name)
{
    if (!addr || addr->kind != TDX_SRC_BINOP || addr->op != TDX_OP_PLUS)
        return NULL;
    tdx_src_node *l = tdx_src_kid(addr, TDX_SRC_R_LEFT), *r = tdx_src_kid(addr, TDX_SRC_R_RIGHT);
    if (l->kind == TDX_SRC_NAME && strcmp(l->name, name) == 0 && !fam_mentions(r, name))
        return r;
    if (r->kind == TDX_SRC_NAME && strcmp(r->name, name) == 0 && !fam_mentions(l, name))
        return l;
    return NULL;
}

/* The only call of `fn` in def whose address (first argument) mentions
 * name, when name occurs nowhere else in def's body. */
static tdx_src_node *only_access(fam_task *t, tdx_src_node *def, const char *fn, const char *name)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, def, TDX_SRC_CALL, &calls);
    tdx_src_node *found = NULL;
    for (size_t i = 0; i < calls.len; i++) {
        tdx_src_node *c = calls.items[i];
        if (fam_mentions(tdx_src_call_arg(c, 0), name) && tdx_src_is_dotted(tdx_src_call_func(c), fn)) {
            if (found)
                return NULL;
            found = c;
        }
    }
    if (!found)
        return NULL;
    /* mentioned only there (the parameter itself aside) */
    size_t uses = 0;
    for (tdx_src_node *s = tdx_src_next(def, TDX_SRC_R_BODY, NULL); s;
         s = tdx_src_next(def, TDX_SRC_R_BODY, s))
        uses += fam_mentions(s, name);
    tdx_ptrvec names = {0};
    fam_collect(t, def, TDX_SRC_NAME, &names);
    size_t n = 0;
    for (size_t i = 0; i < names.len; i++)
        n += strcmp(((tdx_src_node *)names.items[i])->name, name) == 0;
    return n == 1 && uses == 1 ? found : NULL;
}

/* A statement's whole lines: from the start of its first line to just past
 * its last newline. 0 when something else shares those lines. */
static int stmt_lines(fam_task *t, const tdx_src_node *st, size_t *s, size_t *e)
{
    size_t a = st->start, b = st->end;
    while (a > 0 && (t->src[a - 1] == ' ' || t->src[a - 1] == '\t'))
        a--;
    while (b < t->len && (t->src[b] == ' ' || t->src[b] == '\t'))
        b++;
    if ((a > 0 && t->src[a - 1] != '\n') || b >= t->len || t->src[b] != '\n')
        return 0;
    *s = a;
    *e = b + 1;
    return 1;
}

typedef struct fuse {
    tdx_src_node *host, *sa, *sb, *la, *lb, *ka, *kb;
    tdx_src_node *tassign;       /* `T = torch.empty...` in the host */
    const char *pa, *pb;         /* T's parameter in each kernel */
    tdx_src_node *store, *load;  /* A's store of T, B's load of it */
} fuse;

/* The renamed name of B's parameter or local n in the fused kernel: A's
 * parameter receiving the same argument, or n + "_b". */
static const char *b_name(fam_task *t, fuse *f, const char *n)
{
    tdx_src_node *p = tdx_src_param(f->kb, n);
    if (p) {
        tdx_src_node *a = fam_launch_arg(f->lb, f->kb, n, NULL);
        if (a) {
            size_t al;
            const char *at = tdx_src_text(t->m, a, &al);
            const char *pa = fam_param_of_arg(t, f->la, f->ka, at, al);
            if (pa && strcmp(pa, f->pa) != 0)
                return pa;
        }
    }
    return tdx_arena_printf(&t->arena, "%s_b", n);
}

/* Non-zero when n is a parameter of B or assigned in B. */
static int b_local(fam_task *t, fuse *f, const char *n)
{
    if (tdx_src_param(f->kb, n))
        return 1;
    tdx_ptrvec as = {0};
    fam_collect(t, f->kb, TDX_SRC_ASSIGN, &as);
    fam_collect(t, f->kb, TDX_SRC_AUGASSIGN, &as);
    for (size_t i = 0; i < as.len; i++)
        for (tdx_src_node *tg = tdx_src_next(as.items[i], TDX_SRC_R_TARGET, NULL); tg;
             tg = tdx_src_next(as.items[i], TDX_SRC_R_TARGET, tg))
            if (fam_mentions(tg, n))
                return 1;
    return 0;
}

/* Whether launches la, lb qualify; fills the intermediate and its accesses. */
static int check_pair(fam_task *t, fuse *f)
{
    if (!f->ka || !f->kb || f->ka == f->kb || !straight_line(t, f->ka) || !straight_line(t, f->kb))
        return 0;
    tdx_src_node *ga = fam_grid_of(t, f->la), *gb = fam_grid_of(t, f->lb);
    if (!ga || !gb || ga->kind != TDX_SRC_TUPLE || tdx_src_count(ga, TDX_SRC_R_ELT) != 1)
        return 0;
    size_t gal, gbl;
    const char *gat = tdx_src_text(t->m, ga, &gal), *gbt = tdx_src_text(t->m, gb, &gbl);
    if (gal != gbl || memcmp(gat, gbt, gal) != 0)
        return 0;
    /* T: a name passed to both, stored by A, loaded by B */
    int found = 0;
    size_t i = 0;
    for (tdx_src_node *a = tdx_src_next(f->la, TDX_SRC_R_ARG, NULL); a;
         a = tdx_src_next(f->la, TDX_SRC_R_ARG, a), i++) {
        tdx_src_node *pa = param_at(f->ka, i);
        if (a->kind != TDX_SRC_NAME || !pa || !pa->name)
            continue;
        tdx_src_node *st = only_access(t, f->ka, "tl.store", pa->name);
        if (!st)
            continue;
        size_t j = 0;
        for (tdx_src_node *b = tdx_src_next(f->lb, TDX_SRC_R_ARG, NULL); b;
             b = tdx_src_next(f->lb, TDX_SRC_R_ARG, b), j++) {
            tdx_src_node *pb = param_at(f->kb, j);
            if (b->kind != TDX_SRC_NAME || strcmp(b->name, a->name) != 0 || !pb || !pb->name)
                continue;
            tdx_src_node *ld = only_access(t, f->kb, "tl.load", pb->name);
            if (!ld || found)
                return 0;
            found = 1;
            f->pa = pa->name;
            f->pb = pb->name;
            f->store = st;
            f->load = ld;
            /* T: one torch.empty* in the host, used by these two launches only */
            tdx_src_node *d = single_def(t, f->host, a->name);
            tdx_src_node *v = d ? tdx_src_kid(d, TDX_SRC_R_VALUE) : NULL;
            char *fn = v && v->kind == TDX_SRC_CALL ? tdx_src_dotted(tdx_src_call_func(v), &t->arena) : NULL;
            if (!fn || strncmp(fn, "torch.empty", 11) != 0)
                return 0;
            tdx_ptrvec names = {0};
            fam_collect(t, f->host, TDX_SRC_NAME, &names);
            size_t uses = 0;
            for (size_t k = 0; k < names.len; k++)
                uses += strcmp(((tdx_src_node *)names.items[k])->name, a->name) == 0;
            if (uses != 3)
                return 0;
            f->tassign = d;
        }
    }
    /* B's load may be masked (its masked lanes are undefined, so A's value
     * does as well) but not filled with `other`, which B could rely on */
    if (!found || tdx_src_call_kwarg(f->load, "other") || tdx_src_call_nargs(f->load) > 2)
        return 0;
    /* the same lanes: O_a and O_b agree */
    tdx_src_node *oa = offset_from(tdx_src_call_arg(f->store, 0), f->pa);
    tdx_src_node *ob = offset_from(tdx_src_call_arg(f->load, 0), f->pb);
    if (!oa || !ob)
        return 0;
    tdx_buf ca, cb;
    tdx_buf_init(&ca, 1u << 16);
    tdx_buf_init(&cb, 1u << 16);
    int same = canon(t, f->ka, f->la, oa, &ca, 0) && canon(t, f->kb, f->lb, ob, &cb, 0) && ca.len == cb.len &&
               memcmp(ca.data, cb.data, ca.len) == 0;
    tdx_buf_free(&ca);
    tdx_buf_free(&cb);
    if (!same)
        return 0;
    /* B writes nothing A reads: its stored tensors are not A's arguments */
    tdx_ptrvec calls = {0};
    fam_collect(t, f->kb, TDX_SRC_CALL, &calls);
    for (size_t k = 0; k < calls.len; k++) {
        tdx_src_node *c = calls.items[k];
        if (!tdx_src_is_dotted(tdx_src_call_func(c), "tl.store"))
            continue;
        for (tdx_src_node *p = tdx_src_next(f->kb, TDX_SRC_R_PARAM, NULL); p;
             p = tdx_src_next(f->kb, TDX_SRC_R_PARAM, p)) {
            if (!p->name || !fam_mentions(tdx_src_call_arg(c, 0), p->name))
                continue;
            tdx_src_node *a = fam_launch_arg(f->lb, f->kb, p->name, NULL);
            size_t al;
            const char *at = a ? tdx_src_text(t->m, a, &al) : NULL;
            if (!at || fam_param_of_arg(t, f->la, f->ka, at, al))
                return 0;
        }
    }
    /* A's store stands alone as a statement; the names _fused_t and *_b are free */
    if (!f->store->parent || f->store->parent->kind != TDX_SRC_EXPR_STMT ||
        f->store->parent->parent != f->ka || fam_mentions(f->ka, "_fused_t") ||
        fam_mentions(f->kb, "_fused_t"))
        return 0;
    tdx_ptrvec names = {0};
    fam_collect(t, f->kb, TDX_SRC_NAME, &names);
    for (size_t k = 0; k < names.len; k++) {
        const char *n = ((tdx_src_node *)names.items[k])->name;
        if (!b_local(t, f, n))
            continue;
        const char *nn = b_name(t, f, n);
        size_t l = strlen(nn);
        if (l > 2 && strcmp(nn + l - 2, "_b") == 0 && (fam_mentions(f->ka, nn) || tdx_src_param(f->ka, nn)))
            return 0;
    }
    return 1;
}

/* The text of B's body for the fused kernel: names renamed, the load of T
 * replaced by _fused_t. */
static int b_body(fam_task *t, fuse *f, tdx_buf *out)
{
    tdx_src_node *first = tdx_src_kid(f->kb, TDX_SRC_R_BODY), *last = NULL;
    if (first && first->kind == TDX_SRC_EXPR_STMT &&
        tdx_src_kid(first, TDX_SRC_R_VALUE)->kind == TDX_SRC_STRING)
        first = tdx_src_next(f->kb, TDX_SRC_R_BODY, first);
    for (tdx_src_node *s = first; s; s = tdx_src_next(f->kb, TDX_SRC_R_BODY, s))
        last = s;
    tdx_src_node *afirst = tdx_src_kid(f->ka, TDX_SRC_R_BODY);
    if (!first || !afirst || first->col != afirst->col)
        return 0;
    tdx_ptrvec names = {0};
    fam_collect(t, f->kb, TDX_SRC_NAME, &names);
    size_t pos = first->start;
    for (size_t k = 0; k < names.len; k++) {
        tdx_src_node *n = names.items[k];
        if (n->start < pos || n->start >= last->end)
            continue;
        if (n->start >= f->load->start && n->end <= f->load->end)
            continue;
        if (f->load->start >= pos && f->load->start < n->start) {
            tdx_buf_add(out, t->src + pos, f->load->start - pos);
            tdx_buf_adds(out, "_fused_t");
            pos = f->load->end;
        }
        if (!b_local(t, f, n->name))
            continue;
        tdx_buf_add(out, t->src + pos, n->start - pos);
        tdx_buf_adds(out, b_name(t, f, n->name));
        pos = n->end;
    }
    if (f->load->start >= pos && f->load->end <= last->end) {
        tdx_buf_add(out, t->src + pos, f->load->start - pos);
        tdx_buf_adds(out, "_fused_t");
        pos = f->load->end;
    }
    return tdx_buf_add(out, t->src + pos, last->end - pos) == TDX_OK;
}

/* The candidate: the fused kernel before the launching function, its one
 * launch in place of the two, the intermediate's allocation gone. */
static tdx_status emit_fused(fam_task *t, fuse *f, tdx_rw_emit_fn emit, void *ud)
{
    size_t sal, sae, sbl, sbe, tl0, tl1;
    if (!stmt_lines(t, f->sa, &sal, &sae) || !stmt_lines(t, f->sb, &sbl, &sbe) ||
        !stmt_lines(t, f->tassign, &tl0, &tl1))
        return TDX_OK;
    char *fname = tdx_arena_printf(&t->arena, "%s_%s", f->ka->name, f->kb->name);
    if (!fname)
        return TDX_ERR_NOMEM;
    if (tdx_src_find_def(t->m, fname))
        return TDX_OK;
    tdx_buf k;
    tdx_buf_init(&k, 4u << 20);
    /* the signature: A's parameters but T, then B's that A has no match for */
    tdx_buf_printf(&k, "@triton.jit\ndef %s(", fname);
    int n = 0;
    for (tdx_src_node *p = tdx_src_next(f->ka, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(f->ka, TDX_SRC_R_PARAM, p)) {
        if (p->name && strcmp(p->name, f->pa) == 0)
            continue;
        size_t l;
        const char *s = tdx_src_text(t->m, p, &l);
        tdx_buf_printf(&k, "%s%.*s", n++ ? ", " : "", (int)l, s);
    }
    tdx_buf extra; /* launch keywords for B's own parameters */
    tdx_buf_init(&extra, 1u << 16);
    for (tdx_src_node *p = tdx_src_next(f->kb, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(f->kb, TDX_SRC_R_PARAM, p)) {
        if (!p->name || strcmp(p->name, f->pb) == 0)
            continue;
        const char *nn = b_name(t, f, p->name);
        tdx_src_node *a = fam_launch_arg(f->lb, f->kb, p->name, NULL);
        if (tdx_src_param(f->ka, nn))
            continue; /* shared with A */
        size_t l, nl = strlen(p->name);
        const char *s = tdx_src_text(t->m, p, &l);
        tdx_buf_printf(&k, "%s%s%.*s", n++ ? ", " : "", nn, (int)(l - nl), s + nl);
        if (a) {
            size_t al;
            const char *at = tdx_src_text(t->m, a, &al);
            tdx_buf_printf(&extra, ", %s=%.*s", nn, (int)al, at);
        }
    }
    tdx_buf_adds(&k, "):\n");
    /* A's body, its store of T kept in _fused_t */
    tdx_src_node *afirst = tdx_src_kid(f->ka, TDX_SRC_R_BODY), *alast = NULL;
    for (tdx_src_node *s = afirst; s; s = tdx_src_next(f->ka, TDX_SRC_R_BODY, s))
        alast = s;
    tdx_src_node *sst = f->store->parent;
    tdx_src_node *val = tdx_src_call_arg(f->store, 1);
    if (!val)
        val = tdx_src_call_kwarg(f->store, "value");
    int ok = val != NULL && afirst != NULL && afirst->line > f->ka->line;
    if (ok) {
        size_t vl;
        const char *vt = tdx_src_text(t->m, val, &vl);
        size_t from = fam_line_start(t, afirst->start);
        tdx_buf_add(&k, t->src + from, sst->start - from);
        tdx_buf_printf(&k, "_fused_t = %.*s", (int)vl, vt);
        tdx_buf_add(&k, t->src + sst->end, alast->end - sst->end);
        tdx_buf_printf(&k, "\n%*s", afirst->col - 1, "");
        ok = b_body(t, f, &k);
        tdx_buf_adds(&k, "\n\n\n");
    }
    /* the launch: A's, without T, with B's own arguments as keywords */
    tdx_buf l;
    tdx_buf_init(&l, 1u << 16);
    tdx_src_node *sub = tdx_src_call_func(f->la);
    tdx_src_node *grid = NULL;
    tdx_src_is_launch(f->la, NULL, &grid);
    size_t gl;
    const char *gt = grid ? tdx_src_text(t->m, grid, &gl) : NULL;
    ok = ok && gt && sub;
    if (ok) {
        tdx_buf_printf(&l, "%s[%.*s](", fname, (int)gl, gt);
        int m = 0;
        size_t i = 0;
        for (tdx_src_node *a = f->la->nkids ? f->la->kids[0] : NULL; a;
             a = a->index + 1 < f->la->nkids ? f->la->kids[a->index + 1] : NULL) {
            if (a->role != TDX_SRC_R_ARG && a->role != TDX_SRC_R_KEYWORD)
                continue;
            if (a->role == TDX_SRC_R_ARG) {
                tdx_src_node *p = param_at(f->ka, i++);
                if (p && p->name && strcmp(p->name, f->pa) == 0)
                    continue;
            }
            size_t al;
            const char *at = tdx_src_text(t->m, a, &al);
            tdx_buf_printf(&l, "%s%.*s", m++ ? ", " : "", (int)al, at);
        }
        if (extra.len)
            tdx_buf_adds(&l, tdx_buf_str(&extra) + (m ? 0 : 2));
        tdx_buf_adds(&l, ")");
    }
    tdx_status st = TDX_OK;
    if (ok) {
        fam_edits e = {0};
        tdx_src_node *top = f->host;
        while (top->parent && top->parent->kind != TDX_SRC_MODULE)
            top = top->parent;
        fam_edit(t, &e, top->start, top->start, tdx_buf_str(&k));
        fam_edit(t, &e, tl0, tl1, "");
        fam_edit(t, &e, f->sa->start, f->sa->end, tdx_buf_str(&l));
        fam_edit(t, &e, sbl, sbe, "");
        char sum[256];
        snprintf(sum, sizeof sum, "%s and %s fused into %s: one launch, the intermediate kept in registers",
                 f->ka->name, f->kb->name, fname);
        st = fam_emit(t, &e, emit, ud, "fuse-launches", sum);
    }
    tdx_buf_free(&k);
    tdx_buf_free(&extra);
    tdx_buf_free(&l);
    return st;
}

/* The family: every pair of consecutive launch statements. */
tdx_status fam_fuse_launches(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t i = 0; i + 1 < t->launches.len && !st; i++) {
        fuse f;
        memset(&f, 0, sizeof f);
        f.la = t->launches.items[i];
        f.lb = t->launches.items[i + 1];
        f.sa = f.la->parent;
        f.sb = f.lb->parent;
        /* two launch statements, one right after the other, in one function */
        if (!f.sa || !f.sb || f.sa->kind != TDX_SRC_EXPR_STMT || f.sb->kind != TDX_SRC_EXPR_STMT ||
            f.sa->parent != f.sb->parent || f.sb->index != f.sa->index + 1)
            continue;
        f.host = fam_enclosing_def(f.la);
        f.ka = fam_launched_kernel(t, f.la);
        f.kb = fam_launched_kernel(t, f.lb);
        if (!f.host || f.sa->parent != f.host || !check_pair(t, &f))
            continue;
        st = emit_fused(t, &f, emit, ud);
    }
    return st;
}
