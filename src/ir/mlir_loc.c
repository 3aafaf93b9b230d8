/* MLIR source locations: `loc("file":line:col)`, name locations
 * `loc("x"(#loc7))`, call sites `loc(callsite(#a at #b))` (Triton inlines
 * every @jit helper and tl.* library function, so their ops carry the call
 * chain), fused locations, and `#locN` aliases that may be defined after
 * their use (the printer puts most of them at the end of the module). */
#include <ctype.h>
#include <string.h>

#include "ir/ir_int.h"

// Characters of an alias name (#loc12, #blocked1).
static int isalnum_c(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' || c == '-';
}

typedef enum { LN_UNKNOWN, LN_FILE, LN_NAME, LN_CALLSITE, LN_FUSED, LN_REF } ln_kind;

struct tdx_ir_locnode {
    ln_kind kind;
    const char *file, *name; /* FILE: file; NAME: name; REF: alias name */
    int line, col;
    tdx_ir_locnode *a, *b;   /* NAME: a = child; CALLSITE: a callee, b caller; FUSED: a first */
    tdx_ir_locnode *next;    /* FUSED siblings */
};

typedef struct lp {
    tdx_arena *a;
    const char *s;
    size_t n, i;
    int depth;
} lp;

static void ws(lp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t'))
        p->i++;
}

static int eat(lp *p, const char *w)
{
    size_t k = strlen(w);
    ws(p);
    if (p->i + k <= p->n && memcmp(p->s + p->i, w, k) == 0) {
        p->i += k;
        return 1;
    }
    return 0;
}

// A "..." string at the cursor, unescaped only as far as dropping quotes.
static const char *str(lp *p)
{
    ws(p);
    if (p->i >= p->n || p->s[p->i] != '"')
        return NULL;
    size_t j = p->i + 1;
    while (j < p->n && p->s[j] != '"') {
        if (p->s[j] == '\\')
            j++;
        j++;
    }
    if (j >= p->n)
        return NULL;
    const char *r = tdx_arena_strndup(p->a, p->s + p->i + 1, j - p->i - 1);
    p->i = j + 1;
    return r;
}

static int num(lp *p, int *out)
{
    long long v = 0;
    size_t used = tdx_ir__int(p->s + p->i, p->n - p->i, &v);
    if (!used)
        return 0;
    p->i += used;
    *out = v > 0 && v < 100000000 ? (int)v : 0;
    return 1;
}

static tdx_ir_locnode *node(lp *p, ln_kind k)
{
    tdx_ir_locnode *nd = tdx_arena_alloc(p->a, sizeof *nd);
    if (nd)
        nd->kind = k;
    return nd;
}

static tdx_ir_locnode *expr(lp *p);

// The body of a location: what may stand inside loc(...).
static tdx_ir_locnode *body(lp *p)
{
    if (++p->depth > TDX_IR_MAX_DEPTH)
        return NULL;
    ws(p);
    tdx_ir_locnode *r = NULL;
    if (p->i < p->n && p->s[p->i] == '#') {
        size_t j = p->i + 1;
        while (j < p->n && (isalnum_c(p->s[j])))
            j++;
        r = node(p, LN_REF);
        if (r)
            r->name = tdx_arena_strndup(p->a, p->s + p->i + 1, j - p->i - 1);
        p->i = j;
    } else if (eat(p, "unknown")) {
        r = node(p, LN_UNKNOWN);
    } else if (eat(p, "callsite(")) {
        r = node(p, LN_CALLSITE);
        if (!r)
            return NULL;
        r->a = expr(p);
        if (!eat(p, "at"))
            return NULL;
        r->b = expr(p);
        if (!eat(p, ")"))
            return NULL;
    } else if (eat(p, "fused")) {
        r = node(p, LN_FUSED);
        if (!r)
            return NULL;
        ws(p);
        if (p->i < p->n && p->s[p->i] == '<') {
            size_t j = tdx_ir__match(p->s, p->i, p->n);
            if (j >= p->n)
                return NULL;
            p->i = j + 1;
        }
        if (!eat(p, "["))
            return NULL;
        tdx_ir_locnode **tail = &r->a;
        while (!eat(p, "]")) {
            tdx_ir_locnode *c = expr(p);
            if (!c)
                return NULL;
            *tail = c;
            tail = &c->next;
            eat(p, ",");
        }
    } else {
        const char *s = str(p);
        if (!s)
            return NULL;
        if (eat(p, ":")) {
            r = node(p, LN_FILE);
            if (!r)
                return NULL;
            r->file = s;
            if (!num(p, &r->line) || !eat(p, ":") || !num(p, &r->col))
                return NULL;
            if (eat(p, "to")) { /* a range: keep its start */
                int dummy;
                num(p, &dummy);
                if (eat(p, ":"))
                    num(p, &dummy);
            }
        } else {
            r = node(p, LN_NAME);
            if (!r)
                return NULL;
            r->name = s;
            if (eat(p, "(")) {
                r->a = expr(p);
                if (!eat(p, ")"))
                    return NULL;
            }
        }
    }
    p->depth--;
    return r;
}

// A location expression: loc(body) or a bare body.
static tdx_ir_locnode *expr(lp *p)
{
    if (eat(p, "loc(")) {
        tdx_ir_locnode *r = body(p);
        if (!r || !eat(p, ")"))
            return NULL;
        return r;
    }
    return body(p);
}

tdx_ir_locnode *tdx_ir__loc_parse(tdx_arena *a, const char *s, size_t n)
{
    lp p = {a, s, n, 0, 0};
    return expr(&p);
}

// Index of a "locN" alias in the table: N+1, 0 for "loc"; -1 for other names.
static long alias_index(const char *name, size_t n)
{
    if (n < 3 || memcmp(name, "loc", 3) != 0)
        return -1;
    if (n == 3)
        return 0;
    long long v = 0;
    if (tdx_ir__int(name + 3, n - 3, &v) != n - 3 || v < 0 || v > 10000000)
        return -1;
    return (long)v + 1;
}

void tdx_ir__loc_define(tdx_arena *a, tdx_ir_loctab *t, const char *alias, size_t alen,
                        tdx_ir_locnode *nd)
{
    if (!nd)
        return;
    long idx = alias_index(alias, alen);
    if (idx < 0) {
        tdx_ir_locnode *named = tdx_arena_alloc(a, sizeof *named);
        if (!named)
            return;
        named->kind = LN_REF;
        named->name = tdx_arena_strndup(a, alias, alen);
        named->a = nd;
        tdx_ptrvec_push(a, &t->named, named);
        return;
    }
    if ((size_t)idx >= t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap <= (size_t)idx)
            cap *= 2;
        tdx_ir_locnode **arr = tdx_arena_alloc(a, cap * sizeof *arr);
        if (!arr)
            return;
        if (t->byidx)
            memcpy(arr, t->byidx, t->cap * sizeof *arr);
        t->byidx = arr;
        t->cap = cap;
    }
    t->byidx[idx] = nd;
}

static const tdx_ir_locnode *lookup(const tdx_ir_loctab *t, const char *name)
{
    long idx = alias_index(name, strlen(name));
    if (idx >= 0)
        return (size_t)idx < t->cap ? t->byidx[idx] : NULL;
    for (size_t i = 0; i < t->named.len; i++) {
        const tdx_ir_locnode *nd = t->named.items[i];
        if (strcmp(nd->name, name) == 0)
            return nd->a;
    }
    return NULL;
}

static void walk(const tdx_ir_loctab *t, const tdx_ir_locnode *nd, tdx_ir_srcloc *out, int depth)
{
    if (!nd || depth > 32 || out->nframes >= TDX_IR_MAX_FRAMES)
        return;
    switch (nd->kind) {
    case LN_UNKNOWN:
        break;
    case LN_FILE:
        out->frames[out->nframes].file = nd->file;
        out->frames[out->nframes].line = nd->line;
        out->frames[out->nframes].col = nd->col;
        out->nframes++;
        break;
    case LN_NAME:
        if (!out->name)
            out->name = nd->name;
        walk(t, nd->a, out, depth + 1);
        break;
    case LN_CALLSITE:
        walk(t, nd->a, out, depth + 1);
        walk(t, nd->b, out, depth + 1);
        break;
    case LN_FUSED:
        for (const tdx_ir_locnode *c = nd->a; c; c = c->next) {
            int before = out->nframes;
            walk(t, c, out, depth + 1);
            if (out->nframes > before)
                break;
        }
        break;
    case LN_REF:
        walk(t, lookup(t, nd->name), out, depth + 1);
        break;
    }
}

void tdx_ir__loc_resolve(const tdx_ir_loctab *t, const tdx_ir_locnode *nd, const char *kernel_file,
                         tdx_ir_srcloc *out)
{
    memset(out, 0, sizeof *out);
    walk(t, nd, out, 0);
    if (!out->nframes)
        return;
    out->site = out->frames[out->nframes - 1];
    for (int i = 0; i < out->nframes; i++) {
        if (kernel_file && out->frames[i].file && tdx_ir__same_file(out->frames[i].file, kernel_file)) {
            out->site = out->frames[i];
            break;
        }
    }
}
