/* The MLIR text parser for TTIR and TTGIR as Triton prints them: one op per
 * line, regions opened by a '{' that ends a line and closed by a line that
 * starts with '}' (which may go on: "} else {", "}) : (...) -> ... loc(..)"),
 * aliases (`#blocked = ...`, `#loc3 = loc(...)`) at the top level before
 * and after the module. Ops are kept generic: name, results, operands,
 * attributes, types, regions and location; nothing is rejected for being
 * unknown. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "ir/ir_int.h"

#define MAX_OPS ((size_t)1 << 19) /* real kernels have thousands */

struct tdx_ir_defmap {
    const char **keys;
    const tdx_ir_op **ops;
    size_t cap; /* power of two */
};

typedef struct mp {
    tdx_arena *a;
    const char *s;
    size_t n, i;
    int line;
    tdx_ir_module *m;
    tdx_ir_loctab locs;
    tdx_ptrvec opnodes; /* tdx_ir_locnode* parallel to m->ops */
    tdx_diags *d;
    tdx_status st;
    /* Parsed types by their text: a kernel spells the same few types
     * thousands of times. Open addressing, cap a power of two. */
    const tdx_ir_type **types;
    size_t ntypes, captypes;
} mp;

static uint64_t hash_str(const char *s, size_t n);

// A parsed type for text s[0..n), from the cache or parsed and cached.
static const tdx_ir_type *type_cached(mp *p, const char *s, size_t n)
{
    if ((p->ntypes + 1) * 2 > p->captypes) {
        size_t cap = p->captypes ? p->captypes * 2 : 256;
        const tdx_ir_type **arr = tdx_arena_alloc(p->a, cap * sizeof *arr);
        if (!arr)
            return NULL;
        for (size_t i = 0; i < p->captypes; i++)
            if (p->types[i]) {
                const char *t = p->types[i]->text;
                size_t h = hash_str(t, strlen(t)) & (cap - 1);
                while (arr[h])
                    h = (h + 1) & (cap - 1);
                arr[h] = p->types[i];
            }
        p->types = arr;
        p->captypes = cap;
    }
    size_t h = hash_str(s, n) & (p->captypes - 1);
    for (; p->types[h]; h = (h + 1) & (p->captypes - 1)) {
        const char *t = p->types[h]->text;
        if (strncmp(t, s, n) == 0 && t[n] == 0)
            return p->types[h];
    }
    tdx_ir_type *t = tdx_arena_alloc(p->a, sizeof *t);
    if (!t)
        return NULL;
    tdx_ir_type_parse(p->a, s, n, p->m, t);
    if (!t->text || strlen(t->text) != n) /* NUL inside: do not cache */
        return t;
    p->types[h] = t;
    p->ntypes++;
    return t;
}

// Record the first error, with a diagnostic at the current IR line.
static void fail(mp *p, tdx_status st, const char *msg)
{
    if (p->st == TDX_OK) {
        p->st = st;
        if (p->d)
            tdx_diags_add(p->d, TDX_SEV_ERROR, NULL, p->line, 0, "mlir: %s", msg);
    }
}

// Move the cursor to the end of the current line.
static void skip_line(mp *p)
{
    const char *nl = memchr(p->s + p->i, '\n', p->n - p->i);
    p->i = nl ? (size_t)(nl - p->s) : p->n;
}

// 1 when only spaces (and a CR) follow s[i] up to the end of the line.
static int blank_to_eol(const mp *p, size_t i)
{
    while (i < p->n && (p->s[i] == ' ' || p->s[i] == '\t' || p->s[i] == '\r'))
        i++;
    return i >= p->n || p->s[i] == '\n';
}

// Characters of SSA names, op names and symbols.
static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' || c == '-';
}

// A top-level `#name = ...` line: a location or a layout alias.
static void define_alias(mp *p)
{
    size_t start = p->i;
    skip_line(p);
    const char *t = p->s + start;
    size_t tn = p->i - start;
    size_t eq = tdx_ir__find_top(t, tn, " = ");
    if (eq >= tn)
        return;
    const char *v = t + eq + 3;
    size_t vn = tn - eq - 3;
    tdx_ir__trim(&v, &vn);
    if (vn > 4 && memcmp(v, "loc(", 4) == 0) {
        tdx_ir__loc_define(p->a, &p->locs, t + 1, eq - 1, tdx_ir__loc_parse(p->a, v, vn));
    } else if (vn && v[0] == '#') {
        tdx_ir_layout *l = tdx_ir_layout_parse(p->a, v, vn, p->m);
        if (l) {
            l->alias = tdx_arena_strndup(p->a, t + 1, eq - 1);
            tdx_ptrvec_push(p->a, &p->m->layouts, l);
        }
    }
}

typedef struct types_ctx {
    mp *p;
    tdx_ptrvec v;
} types_ctx;

// Append one parsed type (split_top callback).
static void add_type_star(const char *s, size_t n, void *vctx)
{
    types_ctx *c = vctx;
    const tdx_ir_type *t = type_cached(c->p, s, n);
    if (t)
        tdx_ptrvec_push(c->p->a, &c->v, (void *)t);
}

// A type list item; warp_group_dot joins its operand types with " * ".
static void add_type(const char *s, size_t n, void *vctx)
{
    tdx_ir__split_top(s, n, " * ", add_type_star, vctx);
}

// Parse a type list "(A, B)" or "A, B" into an array.
static tdx_ir_type *type_list(mp *p, const char *s, size_t n, size_t *count)
{
    tdx_ir__trim(&s, &n);
    if (n >= 2 && s[0] == '(' && tdx_ir__match(s, 0, n) == n - 1) {
        s++;
        n -= 2;
    }
    types_ctx c = {p, {0}};
    tdx_ir__split_top(s, n, ",", add_type, &c);
    *count = 0;
    if (!c.v.len)
        return NULL;
    tdx_ir_type *arr = tdx_arena_alloc(p->a, c.v.len * sizeof *arr);
    if (!arr)
        return NULL;
    for (size_t i = 0; i < c.v.len; i++)
        arr[i] = *(tdx_ir_type *)c.v.items[i];
    *count = c.v.len;
    return arr;
}

// The pointer array of a string vector, with its length.
static const char **strvec_finish(mp *p, tdx_ptrvec *v, size_t *count)
{
    *count = v->len;
    return (const char **)v->items;
}

// One result name, without its ":N" group size.
static void add_result(const char *s, size_t n, void *vctx)
{
    mp *p = ((void **)vctx)[0];
    tdx_ptrvec *v = ((void **)vctx)[1];
    size_t k = 0;
    while (k < n && s[k] != ':')
        k++;
    char *r = tdx_arena_strndup(p->a, s, k);
    if (r)
        tdx_ptrvec_push(p->a, v, r);
}

// Operands: every %name (with an optional #N) outside strings.
static void scan_operands(mp *p, tdx_ir_op *op, const char *s, size_t n)
{
    tdx_ptrvec v = {0};
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\')
                    i++;
            continue;
        }
        if (s[i] != '%')
            continue;
        size_t j = i + 1;
        while (j < n && name_char(s[j]))
            j++;
        if (j < n && s[j] == '#')
            for (j++; j < n && isdigit((unsigned char)s[j]); j++)
                ;
        if (j > i + 1) {
            char *o = tdx_arena_strndup(p->a, s + i, j - i);
            if (o)
                tdx_ptrvec_push(p->a, &v, o);
        }
        i = j - 1;
    }
    op->operands = strvec_finish(p, &v, &op->noperands);
}

// Attribute dicts at the top level of s: "{...}" and generic "<{...}>".
static void scan_attrs(mp *p, tdx_ir_op *op, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\')
                    i++;
            i++;
            continue;
        }
        if (c == '-' && i + 1 < n && s[i + 1] == '>') {
            i += 2;
            continue;
        }
        if (c == '{' || (c == '<' && i + 1 < n && s[i + 1] == '{')) {
            size_t b = c == '{' ? i : i + 1;
            size_t j = tdx_ir__match(s, b, n);
            if (j >= n)
                return;
            if (j > b + 1)
                tdx_ir__parse_attrs(p->a, s + b + 1, j - b - 1, &op->attrs, &op->nattrs);
            i = (c == '<' ? tdx_ir__match(s, i, n) : j) + 1;
            continue;
        }
        if (c == '(' || c == '[' || c == '<') {
            size_t j = tdx_ir__match(s, i, n);
            if (j >= n)
                return;
            i = j + 1;
            continue;
        }
        i++;
    }
}

typedef struct words_ctx {
    const char *w[64];
    size_t n[64];
    size_t count;
} words_ctx;

// Collect a top-level word (split_top callback).
static void add_word(const char *s, size_t n, void *vctx)
{
    words_ctx *c = vctx;
    if (c->count < 64) {
        c->w[c->count] = s;
        c->n[c->count++] = n;
    }
}

// Bare "key = value" attributes of custom op forms
// ("tt.load %p, %m evictionPolicy = evict_first : ...").
static void scan_bare_attrs(mp *p, tdx_ir_op *op, const char *s, size_t n)
{
    words_ctx c = {.count = 0};
    tdx_ir__split_top(s, n, " ", add_word, &c);
    for (size_t i = 0; i + 2 < c.count; i++) {
        if (c.n[i + 1] != 1 || c.w[i + 1][0] != '=' || !isalpha((unsigned char)c.w[i][0]))
            continue;
        char *buf = tdx_arena_printf(p->a, "%.*s = %.*s", (int)c.n[i], c.w[i], (int)c.n[i + 2],
                                     c.w[i + 2]);
        if (buf)
            tdx_ir__parse_attrs(p->a, buf, strlen(buf), &op->attrs, &op->nattrs);
    }
}

typedef struct args_ctx {
    mp *p;
    tdx_ptrvec v;
} args_ctx;

// One function argument: `%name: type {attrs} loc(...)`.
static void add_arg(const char *s, size_t n, void *vctx)
{
    args_ctx *c = vctx;
    tdx_ir_arg *arg = tdx_arena_alloc(c->p->a, sizeof *arg);
    if (!arg)
        return;
    size_t colon = tdx_ir__find_top(s, n, ":");
    const char *nm = s;
    size_t nn = colon < n ? colon : n;
    tdx_ir__trim(&nm, &nn);
    arg->name = tdx_arena_strndup(c->p->a, nm, nn);
    if (colon < n) {
        const char *t = s + colon + 1;
        size_t tn = n - colon - 1;
        tdx_ir__trim(&t, &tn);
        size_t end = tdx_ir__find_top(t, tn, " ");
        tdx_ir_type_parse(c->p->a, t, end, c->p->m, &arg->type);
        if (end < tn) {
            const char *rest = t + end;
            size_t rn = tn - end;
            size_t br = tdx_ir__find_top(rest, rn, "{");
            if (br < rn) {
                size_t j = tdx_ir__match(rest, br, rn);
                if (j < rn)
                    tdx_ir__parse_attrs(c->p->a, rest + br + 1, j - br - 1, &arg->attrs,
                                        &arg->nattrs);
            }
        }
    }
    for (size_t i = 0; i < arg->nattrs; i++)
        if (strcmp(arg->attrs[i].name, "tt.divisibility") == 0) {
            long long v = 0;
            tdx_ir__int(arg->attrs[i].value, strlen(arg->attrs[i].value), &v);
            arg->divisibility = (int)v;
        }
    if (arg->name)
        tdx_ptrvec_push(c->p->a, &c->v, arg);
}

// tt.func: its symbol name and arguments.
static void parse_func(mp *p, tdx_ir_op *op, const char *s, size_t n)
{
    tdx_ir_func *f = tdx_arena_alloc(p->a, sizeof *f);
    if (!f)
        return;
    f->op = op;
    const char *at = memchr(s, '@', n);
    if (!at) {
        f->name = "";
    } else {
        size_t k = (size_t)(at - s) + 1;
        size_t j = k;
        while (j < n && name_char(s[j]))
            j++;
        f->name = tdx_arena_strndup(p->a, s + k, j - k);
        if (j < n && s[j] == '(') {
            size_t close = tdx_ir__match(s, j, n);
            if (close < n) {
                args_ctx c = {p, {0}};
                tdx_ir__split_top(s + j + 1, close - j - 1, ",", add_arg, &c);
                f->args = tdx_arena_alloc(p->a, (c.v.len ? c.v.len : 1) * sizeof *f->args);
                if (f->args) {
                    for (size_t i = 0; i < c.v.len; i++)
                        f->args[i] = *(tdx_ir_arg *)c.v.items[i];
                    f->nargs = c.v.len;
                }
            }
        }
    }
    if (f->name)
        tdx_ptrvec_push(p->a, &p->m->funcs, f);
}

// Split the op's head text into its parts.
static void digest(mp *p, tdx_ir_op *op, size_t idx, int has_regions, const char *h, size_t hn)
{
    tdx_ir__trim(&h, &hn);
    op->text = tdx_arena_strndup(p->a, h, hn);
    const char *rest = h;
    size_t rn = hn;
    if (hn && h[0] == '%') {
        size_t eq = tdx_ir__find_top(h, hn, " = ");
        if (eq < hn) {
            tdx_ptrvec v = {0};
            void *ctx[2] = {p, &v};
            tdx_ir__split_top(h, eq, ",", add_result, ctx);
            op->results = strvec_finish(p, &v, &op->nresults);
            rest = h + eq + 3;
            rn = hn - eq - 3;
        }
    }
    tdx_ir__trim(&rest, &rn);
    size_t k = 0;
    if (rn && rest[0] == '"') {
        for (k = 1; k < rn && rest[k] != '"'; k++)
            ;
        op->name = tdx_arena_strndup(p->a, rest + 1, k > 1 ? k - 1 : 0);
        if (k < rn)
            k++;
    } else {
        while (k < rn && name_char(rest[k]))
            k++;
        op->name = tdx_arena_strndup(p->a, rest, k);
    }
    const char *b = rest + k;
    size_t bn = rn - k;
    /* The trailing location: the last top-level "loc(" that starts a word.
     * The printer puts it last, so first try the last " loc(" whose
     * parenthesis closes at the very end; else scan forward. */
    size_t off = 0, last = bn;
    {
        size_t e = bn;
        while (e && (b[e - 1] == ' ' || b[e - 1] == '\t' || b[e - 1] == '\r'))
            e--;
        for (size_t i = e >= 5 ? e - 5 : 0; e >= 5 && e && b[e - 1] == ')'; i--) {
            if (b[i] == ' ' && memcmp(b + i + 1, "loc(", 4) == 0 &&
                tdx_ir__match(b, i + 4, e) == e - 1) {
                last = i + 1;
                off = bn; /* found: no forward scan */
                break;
            }
            if (i == 0 || e - i > 4096)
                break;
        }
    }
    while (off < bn) {
        size_t j = tdx_ir__find_top(b + off, bn - off, "loc(");
        if (j >= bn - off)
            break;
        size_t pos = off + j;
        if (pos == 0 || b[pos - 1] == ' ')
            last = pos;
        size_t close = tdx_ir__match(b, pos + 3, bn);
        off = close < bn ? close + 1 : bn;
    }
    tdx_ir_locnode *ln = NULL;
    if (last < bn) {
        size_t close = tdx_ir__match(b, last + 3, bn);
        size_t e = close < bn ? close + 1 : bn;
        op->loc_text = tdx_arena_strndup(p->a, b + last, e - last);
        ln = tdx_ir__loc_parse(p->a, b + last, e - last);
        bn = last;
    }
    if (idx < p->opnodes.len)
        p->opnodes.items[idx] = ln;
    if (op->name && (strcmp(op->name, "tt.func") == 0 || strcmp(op->name, "func.func") == 0)) {
        parse_func(p, op, b, bn);
        scan_attrs(p, op, b, bn);
        return;
    }
    /* Custom-form regions sit at the end of the head ("-> (T) {}"): the
     * types end before them. Generic-form regions are inside parentheses. */
    if (has_regions)
        bn = tdx_ir__find_top(b, bn, "{}");
    size_t colon = tdx_ir__find_top(b, bn, " : ");
    size_t pre = bn;
    if (colon < bn) {
        pre = colon;
        const char *sig = b + colon + 3;
        size_t sn = bn - colon - 3;
        size_t arrow = tdx_ir__find_top(sig, sn, "->");
        size_t alen = 2;
        if (arrow >= sn) {
            arrow = tdx_ir__find_top(sig, sn, " to ");
            alen = 4;
        }
        if (arrow < sn) {
            op->in_types = type_list(p, sig, arrow, &op->nin);
            op->out_types = type_list(p, sig + arrow + alen, sn - arrow - alen, &op->nout);
        } else {
            op->in_types = type_list(p, sig, sn, &op->nin);
        }
    }
    /* scf.for/scf.if print their result types before the colon, if any. */
    size_t arrow = tdx_ir__find_top(b, pre, " -> ");
    if (arrow < pre && !op->nout) {
        op->out_types = type_list(p, b + arrow + 4, pre - arrow - 4, &op->nout);
        pre = arrow;
    }
    scan_operands(p, op, b, pre);
    if (memchr(b, '{', pre))
        scan_attrs(p, op, b, pre);
    if (memchr(b, '=', pre))
        scan_bare_attrs(p, op, b, pre);
}

static void parse_block(mp *p, tdx_ir_region *r, tdx_ir_op *parent, int depth);

// One op: its line, with any regions it opens, then its parts.
static tdx_ir_op *parse_op(mp *p, tdx_ir_op *parent, int depth)
{
    if (p->m->ops.len >= MAX_OPS) {
        fail(p, TDX_ERR_TOOBIG, "too many ops");
        p->i = p->n;
        return NULL;
    }
    tdx_ir_op *op = tdx_arena_alloc(p->a, sizeof *op);
    if (!op || tdx_ptrvec_push(p->a, &p->m->ops, op) || tdx_ptrvec_push(p->a, &p->opnodes, NULL)) {
        fail(p, TDX_ERR_NOMEM, "out of memory");
        p->i = p->n;
        return NULL;
    }
    size_t idx = p->m->ops.len - 1;
    op->parent = parent;
    op->depth = depth;
    op->ir_line = p->line;
    tdx_buf head;
    tdx_buf_init(&head, TDX_IR_MAX_INPUT);
    tdx_ptrvec regions = {0};
    while (p->i < p->n && p->s[p->i] != '\n') {
        size_t j = p->i;
        while (j < p->n && p->s[j] != '\n' && p->s[j] != '"' && p->s[j] != '{')
            j++;
        if (j > p->i)
            tdx_buf_add(&head, p->s + p->i, j - p->i);
        p->i = j;
        if (j >= p->n || p->s[j] == '\n')
            break;
        if (p->s[j] == '"') {
            size_t k = j + 1;
            while (k < p->n && p->s[k] != '"' && p->s[k] != '\n') {
                if (p->s[k] == '\\' && k + 1 < p->n)
                    k++;
                k++;
            }
            if (k < p->n && p->s[k] == '"')
                k++;
            tdx_buf_add(&head, p->s + j, k - j);
            p->i = k;
            continue;
        }
        /* '{' */
        if (!blank_to_eol(p, j + 1)) {
            tdx_buf_addc(&head, '{');
            p->i = j + 1;
            continue;
        }
        tdx_buf_adds(&head, "{}");
        if (depth + 1 >= TDX_IR_MAX_DEPTH) {
            fail(p, TDX_ERR_PARSE, "regions nested too deeply");
            p->i = p->n;
            break;
        }
        p->i = j + 1;
        tdx_ir_region *reg = tdx_arena_alloc(p->a, sizeof *reg);
        if (!reg || tdx_ptrvec_push(p->a, &regions, reg)) {
            fail(p, TDX_ERR_NOMEM, "out of memory");
            p->i = p->n;
            break;
        }
        parse_block(p, reg, op, depth + 1);
        if (p->i < p->n && p->s[p->i] == '}')
            p->i++;
    }
    digest(p, op, idx, regions.len > 0, tdx_buf_str(&head), head.len);
    tdx_buf_free(&head);
    if (regions.len) {
        op->regions = tdx_arena_alloc(p->a, regions.len * sizeof *op->regions);
        if (op->regions) {
            for (size_t i = 0; i < regions.len; i++)
                op->regions[i] = *(tdx_ir_region *)regions.items[i];
            op->nregions = regions.len;
        }
    }
    return op;
}

// Ops of one region (or the top level) up to its closing '}'.
static void parse_block(mp *p, tdx_ir_region *r, tdx_ir_op *parent, int depth)
{
    tdx_ptrvec ops = {0};
    while (p->st == TDX_OK || p->st == TDX_ERR_PARSE) {
        while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\r'))
            p->i++;
        if (p->i >= p->n) {
            if (depth > 0)
                fail(p, TDX_ERR_PARSE, "unterminated region");
            break;
        }
        char c = p->s[p->i];
        if (c == '\n') {
            p->i++;
            p->line++;
            continue;
        }
        if (c == '}') {
            if (depth > 0)
                break;
            skip_line(p);
            continue;
        }
        if (c == '^' || (c == '/' && p->i + 1 < p->n && p->s[p->i + 1] == '/')) {
            skip_line(p);
            continue;
        }
        if (c == '{' && p->i + 1 < p->n && p->s[p->i + 1] == '-') { /* {-# resources #-} */
            const char *end = NULL;
            for (size_t k = p->i; k + 2 < p->n; k++)
                if (p->s[k] == '#' && p->s[k + 1] == '-' && p->s[k + 2] == '}') {
                    end = p->s + k + 3;
                    break;
                }
            for (size_t k = p->i; k < (end ? (size_t)(end - p->s) : p->n); k++)
                if (p->s[k] == '\n')
                    p->line++;
            p->i = end ? (size_t)(end - p->s) : p->n;
            continue;
        }
        if (c == '#' && depth == 0) {
            define_alias(p);
            continue;
        }
        tdx_ir_op *op = parse_op(p, parent, depth);
        if (op)
            tdx_ptrvec_push(p->a, &ops, op);
    }
    r->ops = (tdx_ir_op **)ops.items;
    r->nops = ops.len;
}

// FNV-1a.
static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

// Map every result name to the op that defines it.
static void build_defs(mp *p)
{
    size_t nres = 0;
    for (size_t i = 0; i < p->m->ops.len; i++)
        nres += ((tdx_ir_op *)p->m->ops.items[i])->nresults;
    struct tdx_ir_defmap *d = tdx_arena_alloc(p->a, sizeof *d);
    if (!d)
        return;
    d->cap = 16;
    while (d->cap < nres * 2)
        d->cap *= 2;
    d->keys = tdx_arena_alloc(p->a, d->cap * sizeof *d->keys);
    d->ops = tdx_arena_alloc(p->a, d->cap * sizeof *d->ops);
    if (!d->keys || !d->ops)
        return;
    for (size_t i = 0; i < p->m->ops.len; i++) {
        const tdx_ir_op *op = p->m->ops.items[i];
        for (size_t r = 0; r < op->nresults; r++) {
            const char *k = op->results[r];
            size_t h = hash_str(k, strlen(k)) & (d->cap - 1);
            while (d->keys[h] && strcmp(d->keys[h], k) != 0)
                h = (h + 1) & (d->cap - 1);
            if (!d->keys[h]) {
                d->keys[h] = k;
                d->ops[h] = op;
            }
        }
    }
    p->m->defs = d;
}

// Look up the op defining a value ("%x#1" looks up "%x").
const tdx_ir_op *tdx_ir_def(const tdx_ir_module *m, const char *value)
{
    if (!m || !m->defs || !m->defs->keys || !value)
        return NULL;
    size_t n = strlen(value);
    const char *hash = memchr(value, '#', n);
    if (hash)
        n = (size_t)(hash - value);
    const struct tdx_ir_defmap *d = m->defs;
    size_t h = hash_str(value, n) & (d->cap - 1);
    while (d->keys[h]) {
        if (strlen(d->keys[h]) == n && memcmp(d->keys[h], value, n) == 0)
            return d->ops[h];
        h = (h + 1) & (d->cap - 1);
    }
    return NULL;
}

// An op's attribute by name.
const tdx_ir_attr *tdx_ir_op_attr(const tdx_ir_op *op, const char *name)
{
    if (!op)
        return NULL;
    for (size_t i = 0; i < op->nattrs; i++)
        if (strcmp(op->attrs[i].name, name) == 0)
            return &op->attrs[i];
    return NULL;
}

// An attribute's integer value ("16 : i32", true/false).
long long tdx_ir_op_attr_int(const tdx_ir_op *op, const char *name, long long def)
{
    const tdx_ir_attr *at = tdx_ir_op_attr(op, name);
    long long v;
    if (!at)
        return def;
    if (strncmp(at->value, "true", 4) == 0)
        return 1;
    if (strncmp(at->value, "false", 5) == 0)
        return 0;
    return tdx_ir__int(at->value, strlen(at->value), &v) ? v : def;
}

// The type of an op's value: the result type when printed, else the operand type.
const tdx_ir_type *tdx_ir_op_type(const tdx_ir_op *op)
{
    if (!op)
        return NULL;
    if (op->nout)
        return &op->out_types[0];
    if (op->nin)
        return &op->in_types[op->nin - 1];
    return NULL;
}

// num-warps, num-ctas, threads-per-warp and target from the module's attributes.
static void module_attrs(tdx_ir_module *m, const tdx_ir_op *op, tdx_arena *a)
{
    m->attrs = op->attrs;
    m->nattrs = op->nattrs;
    m->num_warps = (int)tdx_ir_op_attr_int(op, "ttg.num-warps", 0);
    m->num_ctas = (int)tdx_ir_op_attr_int(op, "ttg.num-ctas", 0);
    m->threads_per_warp = (int)tdx_ir_op_attr_int(op, "ttg.threads-per-warp", 0);
    const tdx_ir_attr *t = tdx_ir_op_attr(op, "ttg.target");
    if (t) {
        const char *v = t->value;
        size_t n = strlen(v);
        if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
            m->target = tdx_arena_strndup(a, v + 1, n - 2);
        else
            m->target = v;
    }
}

// Parse, then resolve every op's location and index the value names.
tdx_status tdx_ir_mlir_parse(const char *text, size_t len, tdx_arena *arena, tdx_ir_module **out,
                             tdx_diags *diags)
{
    *out = NULL;
    if (!text || !arena)
        return TDX_ERR_ARG;
    if (len > TDX_IR_MAX_INPUT) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, NULL, 0, 0, "mlir: input over %zu bytes",
                          (size_t)TDX_IR_MAX_INPUT);
        return TDX_ERR_TOOBIG;
    }
    tdx_ir_module *m = tdx_arena_alloc(arena, sizeof *m);
    if (!m)
        return TDX_ERR_NOMEM;
    mp p = {.a = arena, .s = text, .n = len, .line = 1, .m = m, .d = diags};
    parse_block(&p, &m->top, NULL, 0);
    for (size_t i = 0; i < m->ops.len; i++) {
        const tdx_ir_op *op = m->ops.items[i];
        if (op->depth == 0 && op->name && strcmp(op->name, "module") == 0) {
            module_attrs(m, op, arena);
            break;
        }
    }
    /* The kernel's own file is where its public function is (noinline
     * helpers are private and may be printed first); else the first one. */
    for (size_t i = 0; m->ops.len && i < 2 * m->ops.len && !m->kernel_file; i++) {
        const tdx_ir_op *op = m->ops.items[i % m->ops.len];
        int want_public = i < m->ops.len;
        if (op->name && strcmp(op->name, "tt.func") == 0 &&
            (!want_public || (op->text && strstr(op->text, "tt.func public")))) {
            tdx_ir_srcloc sl;
            size_t j = i % m->ops.len;
            tdx_ir__loc_resolve(&p.locs, j < p.opnodes.len ? p.opnodes.items[j] : NULL, NULL, &sl);
            if (sl.nframes)
                m->kernel_file = sl.frames[0].file;
        }
    }
    for (size_t i = 0; i < m->ops.len; i++) {
        tdx_ir_op *op = m->ops.items[i];
        tdx_ir__loc_resolve(&p.locs, i < p.opnodes.len ? p.opnodes.items[i] : NULL,
                            m->kernel_file, &op->loc);
    }
    build_defs(&p);
    *out = m;
    return p.st;
}
