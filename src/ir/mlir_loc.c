/* MLIR source locations: `loc("file":line:col)`, name locations
 * `loc("x"(#loc7))`, call sites `loc(callsite(#a at #b))` (Triton inlines
 * every @jit helper and tl.* library function, so their ops carry the call
 * chain), fused locations, and `#locN` aliases that may be defined after
 * their use (the printer puts most of them at the end of the module). */
#include <ctype.h>
#include <stdint.h>
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

// Skip blanks.
static void ws(lp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t'))
        p->i++;
}

// Consume w after blanks; 0 when it is not there.
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

// An integer at the cursor, clamped to a sane range.
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

// A fresh location node.
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

// Entry point: one location expression.
tdx_ir_locnode *tdx_ir__loc_parse(tdx_arena *a, const char *s, size_t n)
{
    lp p = {a, s, n, 0, 0};
    return expr(&p);
}

// FNV-1a over an alias name.
static size_t hash_name(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return (size_t)h;
}

// Slot of name in the table: its entry, or the empty slot it would take.
static size_t slot(const tdx_ir_loctab *t, const char *name, size_t n)
{
    size_t h = hash_name(name, n) & (t->cap - 1);
    while (t->keys[h] && !(strlen(t->keys[h]) == n && memcmp(t->keys[h], name, n) == 0))
        h = (h + 1) & (t->cap - 1);
    return h;
}

// Add or replace an alias, growing the table at half load.
void tdx_ir__loc_define(tdx_arena *a, tdx_ir_loctab *t, const char *alias, size_t alen,
                        tdx_ir_locnode *nd)
{
    if (!nd)
        return;
    if ((t->len + 1) * 2 > t->cap) {
        tdx_ir_loctab g = {0};
        g.cap = t->cap ? t->cap * 2 : 256;
        g.keys = tdx_arena_alloc(a, g.cap * sizeof *g.keys);
        g.vals = tdx_arena_alloc(a, g.cap * sizeof *g.vals);
        if (!g.keys || !g.vals)
            return;
        for (size_t i = 0; i < t->cap; i++)
            if (t->keys[i]) {
                size_t h = slot(&g, t->keys[i], strlen(t->keys[i]));
                g.keys[h] = t->keys[i];
                g.vals[h] = t->vals[i];
            }
        g.len = t->len;
        *t = g;
    }
    size_t h = slot(t, alias, alen);
    if (!t->keys[h]) {
        t->keys[h] = tdx_arena_strndup(a, alias, alen);
        if (!t->keys[h])
            return;
        t->len++;
    }
    t->vals[h] = nd;
}

// The location an alias names, or NULL.
static const tdx_ir_locnode *lookup(const tdx_ir_loctab *t, const char *name)
{
    if (!t->cap)
        return NULL;
    return t->vals[slot(t, name, strlen(name))];
}

/* A walk visits at most this many nodes: call sites branch, and aliases can
 * be shared or cyclic, so an unbounded walk could be exponential. */
#define WALK_BUDGET 512

// Append the frames of a location, innermost first, within the budget.
static void walk(const tdx_ir_loctab *t, const tdx_ir_locnode *nd, tdx_ir_srcloc *out, int depth,
                 int *budget)
{
    if (!nd || depth > 32 || out->nframes >= TDX_IR_MAX_FRAMES || --*budget < 0)
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
        walk(t, nd->a, out, depth + 1, budget);
        break;
    case LN_CALLSITE:
        walk(t, nd->a, out, depth + 1, budget);
        walk(t, nd->b, out, depth + 1, budget);
        break;
    case LN_FUSED:
        for (const tdx_ir_locnode *c = nd->a; c; c = c->next) {
            int before = out->nframes;
            walk(t, c, out, depth + 1, budget);
            if (out->nframes > before)
                break;
        }
        break;
    case LN_REF:
        walk(t, lookup(t, nd->name), out, depth + 1, budget);
        break;
    }
}

// Frames of a location and the kernel-file site among them.
void tdx_ir__loc_resolve(const tdx_ir_loctab *t, const tdx_ir_locnode *nd, const char *kernel_file,
                         tdx_ir_srcloc *out)
{
    memset(out, 0, sizeof *out);
    int budget = WALK_BUDGET;
    walk(t, nd, out, 0, &budget);
    if (!out->nframes)
        return;
    out->site = out->frames[out->nframes - 1];
    for (int i = 0; i < out->nframes; i++) {
        const char *f = out->frames[i].file;
        if (kernel_file && f && tdx_ir__same_file(f, kernel_file)) {
            out->site = out->frames[i];
            break;
        }
    }
}
