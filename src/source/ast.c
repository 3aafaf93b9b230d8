/* Reading the syntax tree: child lookup by role, walks, node text, dotted
 * names, call arguments, kernel discovery and literal values. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "source/ast.h"

// The first child with a role.
tdx_src_node *tdx_src_kid(const tdx_src_node *n, tdx_src_role role)
{
    return tdx_src_next(n, role, NULL);
}

// The next child with a role after prev, using prev's index in its parent.
tdx_src_node *tdx_src_next(const tdx_src_node *n, tdx_src_role role, const tdx_src_node *prev)
{
    if (!n)
        return NULL;
    uint32_t k = prev && prev->parent == n ? prev->index + 1 : 0;
    for (; k < n->nkids; k++)
        if (n->kids[k]->role == role)
            return n->kids[k];
    return NULL;
}

// How many children have a role.
size_t tdx_src_count(const tdx_src_node *n, tdx_src_role role)
{
    size_t c = 0;
    for (uint32_t k = 0; n && k < n->nkids; k++)
        c += n->kids[k]->role == role;
    return c;
}

// Pre-order walk; the tree height is bounded, so recursion is too.
int tdx_src_walk(tdx_src_node *n, tdx_src_visit_fn fn, void *ud)
{
    if (!n)
        return 0;
    int r = fn(n, ud);
    if (r < 0)
        return -1;
    if (r > 0)
        return 0;
    for (uint32_t k = 0; k < n->nkids; k++)
        if (tdx_src_walk(n->kids[k], fn, ud) < 0)
            return -1;
    return 0;
}

// The source bytes of a node.
const char *tdx_src_text(const tdx_src_module *m, const tdx_src_node *n, size_t *len)
{
    if (!m || !n || n->end > m->len || n->start > n->end) {
        *len = 0;
        return "";
    }
    *len = n->end - n->start;
    return m->src + n->start;
}

int tdx_src_same_text(const tdx_src_module *m, const tdx_src_node *a, const tdx_src_node *b)
{
    size_t al, bl;
    const char *at = tdx_src_text(m, a, &al), *bt = tdx_src_text(m, b, &bl);
    return al == bl && memcmp(at, bt, al) == 0;
}

int tdx_src_exclusive(const tdx_src_node *a, const tdx_src_node *b)
{
    /* the lowest common ancestor, and the child of it on each path */
    for (const tdx_src_node *ca = a; ca && ca->parent; ca = ca->parent) {
        const tdx_src_node *x = ca->parent;
        for (const tdx_src_node *cb = b; cb && cb->parent; cb = cb->parent) {
            if (cb->parent != x)
                continue;
            if (cb == ca || (x->kind != TDX_SRC_IF && x->kind != TDX_SRC_IFEXP))
                return 0;
            return (ca->role == TDX_SRC_R_BODY && cb->role == TDX_SRC_R_ORELSE) ||
                   (ca->role == TDX_SRC_R_ORELSE && cb->role == TDX_SRC_R_BODY);
        }
    }
    return 0;
}

// The source text of a node, copied with a NUL.
char *tdx_src_text_dup(const tdx_src_module *m, const tdx_src_node *n, tdx_arena *arena)
{
    size_t len;
    const char *s = tdx_src_text(m, n, &len);
    return tdx_arena_strndup(arena, s, len);
}

// Length of the dotted text of a NAME/ATTRIBUTE chain, or 0 if it is not one.
static size_t dotted_len(const tdx_src_node *n)
{
    size_t len = 0;
    for (;;) {
        if (!n || !n->name)
            return 0;
        if (n->kind == TDX_SRC_NAME)
            return len + strlen(n->name);
        if (n->kind != TDX_SRC_ATTRIBUTE || n->nkids != 1)
            return 0;
        len += strlen(n->name) + 1;
        n = n->kids[0];
    }
}

// "a.b.c" of a NAME/ATTRIBUTE chain, written right to left.
char *tdx_src_dotted(const tdx_src_node *n, tdx_arena *arena)
{
    size_t len = dotted_len(n);
    if (!len)
        return NULL;
    char *out = tdx_arena_alloc(arena, len + 1);
    if (!out)
        return NULL;
    size_t end = len;
    for (; n->kind == TDX_SRC_ATTRIBUTE; n = n->kids[0]) {
        size_t k = strlen(n->name);
        end -= k;
        memcpy(out + end, n->name, k);
        out[--end] = '.';
    }
    memcpy(out, n->name, strlen(n->name));
    out[len] = '\0';
    return out;
}

// Match a NAME/ATTRIBUTE chain against "a.b.c" from the right, without allocating.
int tdx_src_is_dotted(const tdx_src_node *n, const char *dotted)
{
    size_t end = strlen(dotted);
    for (;;) {
        if (!n || !n->name)
            return 0;
        size_t k = strlen(n->name);
        if (n->kind == TDX_SRC_NAME)
            return k == end && memcmp(dotted, n->name, k) == 0;
        if (n->kind != TDX_SRC_ATTRIBUTE || n->nkids != 1 || k + 1 > end ||
            memcmp(dotted + end - k, n->name, k) != 0 || dotted[end - k - 1] != '.')
            return 0;
        end -= k + 1;
        n = n->kids[0];
    }
}

int tdx_src_is_name(const tdx_src_node *n, const char *name)
{
    return n && n->kind == TDX_SRC_NAME && n->name && (!name || strcmp(n->name, name) == 0);
}

int tdx_src_is_bound_name(const tdx_src_node *n)
{
    return tdx_src_is_name(n, NULL) &&
           (n->role == TDX_SRC_R_TARGET ||
            (n->parent && n->parent->kind == TDX_SRC_TUPLE && n->parent->role == TDX_SRC_R_TARGET));
}

typedef struct name_count {
    const char *name;
    int bound; /* count only bindings */
    int n;
} name_count;

static int name_count_visit(tdx_src_node *n, void *ud)
{
    name_count *c = ud;
    c->n += tdx_src_is_name(n, c->name) && (!c->bound || tdx_src_is_bound_name(n));
    return 0;
}

int tdx_src_count_name(const tdx_src_node *n, const char *name)
{
    name_count c = {name, 0, 0};
    tdx_src_walk((tdx_src_node *)n, name_count_visit, &c);
    return c.n;
}

int tdx_src_count_bindings(const tdx_src_node *n, const char *name)
{
    name_count c = {name, 1, 0};
    tdx_src_walk((tdx_src_node *)n, name_count_visit, &c);
    return c.n;
}

// The callee of a call.
tdx_src_node *tdx_src_call_func(const tdx_src_node *call)
{
    return call && call->kind == TDX_SRC_CALL ? tdx_src_kid(call, TDX_SRC_R_FUNC) : NULL;
}

// The i-th positional argument of a call.
tdx_src_node *tdx_src_call_arg(const tdx_src_node *call, size_t i)
{
    if (!call || call->kind != TDX_SRC_CALL)
        return NULL;
    for (tdx_src_node *a = tdx_src_next(call, TDX_SRC_R_ARG, NULL); a;
         a = tdx_src_next(call, TDX_SRC_R_ARG, a))
        if (i-- == 0)
            return a;
    return NULL;
}

// The number of positional arguments of a call.
size_t tdx_src_call_nargs(const tdx_src_node *call)
{
    return call && call->kind == TDX_SRC_CALL ? tdx_src_count(call, TDX_SRC_R_ARG) : 0;
}

// The value of a named keyword argument (of a call or a class header).
tdx_src_node *tdx_src_call_kwarg(const tdx_src_node *call, const char *name)
{
    if (!call || (call->kind != TDX_SRC_CALL && call->kind != TDX_SRC_CLASSDEF))
        return NULL;
    for (tdx_src_node *k = tdx_src_next(call, TDX_SRC_R_KEYWORD, NULL); k;
         k = tdx_src_next(call, TDX_SRC_R_KEYWORD, k))
        if (k->name && strcmp(k->name, name) == 0)
            return tdx_src_kid(k, TDX_SRC_R_VALUE);
    return NULL;
}

// Recognise kernel[grid](...) and hand out its kernel and grid.
int tdx_src_is_launch(const tdx_src_node *call, tdx_src_node **kernel, tdx_src_node **grid)
{
    tdx_src_node *f = tdx_src_call_func(call);
    if (!f || f->kind != TDX_SRC_SUBSCRIPT)
        return 0;
    if (kernel)
        *kernel = tdx_src_kid(f, TDX_SRC_R_VALUE);
    if (grid)
        *grid = tdx_src_kid(f, TDX_SRC_R_INDEX);
    return 1;
}

// The decorator that is, or calls, a dotted name.
tdx_src_node *tdx_src_decorator(const tdx_src_node *def, const char *dotted)
{
    if (!def || (def->kind != TDX_SRC_FUNCDEF && def->kind != TDX_SRC_CLASSDEF))
        return NULL;
    for (tdx_src_node *d = tdx_src_next(def, TDX_SRC_R_DECORATOR, NULL); d;
         d = tdx_src_next(def, TDX_SRC_R_DECORATOR, d)) {
        tdx_src_node *e = tdx_src_kid(d, TDX_SRC_R_VALUE);
        if (e && e->kind == TDX_SRC_CALL)
            e = tdx_src_call_func(e);
        if (tdx_src_is_dotted(e, dotted))
            return d;
    }
    return NULL;
}

// Whether a def carries Triton's jit decorator.
int tdx_src_is_jit(const tdx_src_node *def)
{
    if (!def || def->kind != TDX_SRC_FUNCDEF)
        return 0;
    for (tdx_src_node *d = tdx_src_next(def, TDX_SRC_R_DECORATOR, NULL); d;
         d = tdx_src_next(def, TDX_SRC_R_DECORATOR, d)) {
        tdx_src_node *e = tdx_src_kid(d, TDX_SRC_R_VALUE);
        if (e && e->kind == TDX_SRC_CALL)
            e = tdx_src_call_func(e);
        /* triton.jit, jit, triton.runtime.jit.jit ...: Triton's decorator is
         * `jit` (triton/runtime/jit.py), re-exported under several paths;
         * numba.jit and torch.jit are not kernels */
        if (!e || !dotted_len(e) || strcmp(e->name, "jit") != 0)
            continue;
        const tdx_src_node *root = e;
        while (root->kind == TDX_SRC_ATTRIBUTE)
            root = root->kids[0];
        if (root == e || strcmp(root->name, "triton") == 0 || strcmp(root->name, "tl") == 0)
            return 1;
    }
    return 0;
}

typedef struct jit_walk {
    tdx_arena *arena;
    tdx_ptrvec *out;
    int n;
} jit_walk;

// Visitor collecting kernels; expressions cannot hold a def, so skip them.
static int collect_jit(tdx_src_node *n, void *ud)
{
    jit_walk *w = ud;
    if (tdx_src_is_jit(n)) {
        if (tdx_ptrvec_push(w->arena, w->out, n) < 0) {
            w->n = -1;
            return -1;
        }
        w->n++;
    }
    switch (n->kind) {
    case TDX_SRC_MODULE: case TDX_SRC_FUNCDEF: case TDX_SRC_CLASSDEF: case TDX_SRC_IF:
    case TDX_SRC_FOR: case TDX_SRC_WHILE: case TDX_SRC_WITH: case TDX_SRC_TRY:
    case TDX_SRC_EXCEPT:
        return 0;
    default:
        return 1;
    }
}

// Collect every kernel of a module in source order.
int tdx_src_find_jit(const tdx_src_module *m, tdx_arena *arena, tdx_ptrvec *out)
{
    jit_walk w = {arena, out, 0};
    if (m && m->root)
        tdx_src_walk(m->root, collect_jit, &w);
    return w.n;
}

typedef struct def_walk {
    const char *name;
    tdx_src_node *found;
} def_walk;

// Visitor for tdx_src_find_def: stop at the first def of that name.
static int find_def_visit(tdx_src_node *n, void *ud)
{
    def_walk *w = ud;
    if (n->kind == TDX_SRC_FUNCDEF && n->name && strcmp(n->name, w->name) == 0) {
        w->found = n;
        return -1;
    }
    return n->kind >= TDX_SRC_NAME ? 1 : 0;
}

// Find a def by name, module level first.
tdx_src_node *tdx_src_find_def(const tdx_src_module *m, const char *name)
{
    if (!m || !m->root)
        return NULL;
    tdx_src_node *root = m->root;
    for (uint32_t k = 0; k < root->nkids; k++) {
        tdx_src_node *n = root->kids[k];
        if (n->kind == TDX_SRC_FUNCDEF && n->name && strcmp(n->name, name) == 0)
            return n;
    }
    def_walk w = {name, NULL};
    tdx_src_walk(root, find_def_visit, &w);
    return w.found;
}

// Whether an assignment target (a name, or a tuple or list of targets) binds name.
static int target_binds(const tdx_src_node *t, const char *name)
{
    if (t->kind == TDX_SRC_NAME)
        return t->name && strcmp(t->name, name) == 0;
    if (t->kind != TDX_SRC_TUPLE && t->kind != TDX_SRC_LIST)
        return 0;
    for (uint32_t k = 0; k < t->nkids; k++)
        if (target_binds(t->kids[k], name))
            return 1;
    return 0;
}

// Whether an import alias binds name: its `as` name, else its first dotted part.
static int alias_binds(const tdx_src_node *a, const char *name)
{
    if (a->name2)
        return strcmp(a->name2, name) == 0;
    size_t n = strlen(name);
    return a->name && strncmp(a->name, name, n) == 0 && (a->name[n] == 0 || a->name[n] == '.');
}

static int binds_in(const tdx_src_node *n, const char *name, int depth)
{
    if (depth > 64) /* statements nest far less deeply than that */
        return 0;
    switch (n->kind) {
    case TDX_SRC_FUNCDEF:
    case TDX_SRC_CLASSDEF:
        return n->name && strcmp(n->name, name) == 0;
    case TDX_SRC_ASSIGN:
    case TDX_SRC_ANNASSIGN:
        for (tdx_src_node *t = tdx_src_next(n, TDX_SRC_R_TARGET, NULL); t; t = tdx_src_next(n, TDX_SRC_R_TARGET, t))
            if (target_binds(t, name))
                return 1;
        return 0;
    case TDX_SRC_IMPORT:
    case TDX_SRC_IMPORT_FROM:
        if (n->flags & TDX_SRC_F_STAR)
            return 1;
        for (uint32_t k = 0; k < n->nkids; k++)
            if (n->kids[k]->kind == TDX_SRC_ALIAS && alias_binds(n->kids[k], name))
                return 1;
        return 0;
    case TDX_SRC_MODULE:
    case TDX_SRC_IF:
    case TDX_SRC_TRY:
    case TDX_SRC_EXCEPT:
    case TDX_SRC_WITH:
    case TDX_SRC_FOR:
    case TDX_SRC_WHILE:
        for (uint32_t k = 0; k < n->nkids; k++)
            if (binds_in(n->kids[k], name, depth + 1))
                return 1;
        return 0;
    default:
        return 0;
    }
}

int tdx_src_binds(const tdx_src_module *m, const char *name)
{
    return m && m->root && name && binds_in(m->root, name, 0);
}

// Find a parameter by name.
tdx_src_node *tdx_src_param(const tdx_src_node *def, const char *name)
{
    for (tdx_src_node *p = tdx_src_next(def, TDX_SRC_R_PARAM, NULL); p;
         p = tdx_src_next(def, TDX_SRC_R_PARAM, p))
        if (p->name && strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

// Whether a parameter is annotated as a Triton constexpr.
int tdx_src_param_is_constexpr(const tdx_src_node *param)
{
    tdx_src_node *a = tdx_src_kid(param, TDX_SRC_R_ANNOTATION);
    if (!a)
        return 0;
    if (a->kind == TDX_SRC_STRING) /* a quoted annotation, "tl.constexpr" */
        return 0;
    return tdx_src_is_dotted(a, "tl.constexpr") || tdx_src_is_dotted(a, "constexpr") ||
           tdx_src_is_dotted(a, "triton.language.constexpr") ||
           tdx_src_is_dotted(a, "language.constexpr");
}

// Copy the literal text of a NUMBER without `_` separators into buf.
static int number_text(const tdx_src_module *m, const tdx_src_node *n, char *buf, size_t cap)
{
    size_t len, o = 0;
    const char *s = tdx_src_text(m, n, &len);
    for (size_t k = 0; k < len; k++) {
        if (s[k] == '_')
            continue;
        if (o + 1 >= cap)
            return -1;
        buf[o++] = s[k];
    }
    buf[o] = '\0';
    return 0;
}

// Peel unary +/- off n: returns the inner node and the sign.
static const tdx_src_node *signed_literal(const tdx_src_node *n, int *neg)
{
    *neg = 0;
    while (n && n->kind == TDX_SRC_UNARYOP && (n->op == TDX_OP_MINUS || n->op == TDX_OP_PLUS)) {
        if (n->op == TDX_OP_MINUS)
            *neg = !*neg;
        n = n->kids[0];
    }
    return n;
}

// The value of an integer literal, sign included.
tdx_status tdx_src_int_value(const tdx_src_module *m, const tdx_src_node *n, long long *v)
{
    int neg;
    n = signed_literal(n, &neg);
    if (!n || n->kind != TDX_SRC_NUMBER)
        return TDX_ERR_INPUT;
    char buf[128];
    if (number_text(m, n, buf, sizeof buf) < 0)
        return TDX_ERR_INPUT;
    int base = 10;
    const char *digits = buf;
    if (buf[0] == '0' && buf[1]) {
        char k = (char)(buf[1] | 0x20);
        base = k == 'x' ? 16 : k == 'o' ? 8 : k == 'b' ? 2 : 10;
        if (base != 10)
            digits = buf + 2;
    }
    if (base == 10 && strpbrk(buf, ".eEjJ"))
        return TDX_ERR_INPUT;
    errno = 0;
    char *end;
    unsigned long long u = strtoull(digits, &end, base);
    if (errno || *end || !*digits || u > (unsigned long long)LLONG_MAX + (unsigned)neg)
        return TDX_ERR_INPUT;
    *v = neg ? (long long)(0ULL - u) : (long long)u;
    return TDX_OK;
}

// The value of an int or float literal as a double.
tdx_status tdx_src_number_value(const tdx_src_module *m, const tdx_src_node *n, double *v)
{
    long long i;
    if (tdx_src_int_value(m, n, &i) == TDX_OK) {
        *v = (double)i;
        return TDX_OK;
    }
    int neg;
    n = signed_literal(n, &neg);
    if (!n || n->kind != TDX_SRC_NUMBER)
        return TDX_ERR_INPUT;
    char buf[128];
    if (number_text(m, n, buf, sizeof buf) < 0 || strpbrk(buf, "jJxXoObB"))
        return TDX_ERR_INPUT;
    char *end;
    double d = strtod(buf, &end);
    if (*end)
        return TDX_ERR_INPUT;
    *v = neg ? -d : d;
    return TDX_OK;
}

// Decode one escape after a backslash at s[k]; appends to out, returns the
// number of source bytes used after the backslash.
static size_t unescape(const char *s, size_t k, size_t n, char *out, size_t *o)
{
    char c = s[k];
    switch (c) {
    case 'n': out[(*o)++] = '\n'; return 1;
    case 't': out[(*o)++] = '\t'; return 1;
    case 'r': out[(*o)++] = '\r'; return 1;
    case '0': out[(*o)++] = '\0'; return 1;
    case '\\': case '\'': case '"': out[(*o)++] = c; return 1;
    case '\n': return 1; /* a line continuation inside the string */
    default:
        out[(*o)++] = '\\';
        if (k < n)
            out[(*o)++] = c;
        return 1;
    }
}

// The decoded text of plain string literals, concatenated.
char *tdx_src_string_value(const tdx_src_module *m, const tdx_src_node *n, tdx_arena *arena)
{
    if (!n || n->kind != TDX_SRC_STRING || (n->flags & (TDX_SRC_F_FSTRING | TDX_SRC_F_BYTES)))
        return NULL;
    size_t len;
    const char *s = tdx_src_text(m, n, &len);
    char *out = tdx_arena_alloc(arena, len + 1);
    if (!out)
        return NULL;
    size_t o = 0, k = 0;
    while (k < len) {
        /* between literals: whitespace, comments, continuations, newlines */
        char c = s[k];
        if (c == '#') {
            while (k < len && s[k] != '\n')
                k++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '\f') {
            k++;
            continue;
        }
        int raw = 0;
        while (k < len && s[k] != '"' && s[k] != '\'') {
            if (s[k] == 'r' || s[k] == 'R')
                raw = 1;
            k++;
        }
        if (k >= len)
            break;
        char q = s[k];
        int triple = k + 2 < len && s[k + 1] == q && s[k + 2] == q;
        k += triple ? 3 : 1;
        while (k < len) {
            if (s[k] == q && (!triple || (k + 2 < len && s[k + 1] == q && s[k + 2] == q))) {
                k += triple ? 3 : 1;
                break;
            }
            if (s[k] == '\\' && k + 1 < len) {
                if (raw) {
                    out[o++] = s[k];
                    out[o++] = s[k + 1];
                    k += 2;
                } else {
                    k += 1 + unescape(s, k + 1, len, out, &o);
                }
                continue;
            }
            out[o++] = s[k++];
        }
    }
    out[o] = '\0';
    return out;
}

// Line and column of a byte offset (a linear scan; for occasional use).
void tdx_src_position(const tdx_src_module *m, size_t offset, int *line, int *col)
{
    if (offset > m->len)
        offset = m->len;
    int l = 1;
    size_t ls = 0;
    const char *s = m->src;
    for (size_t k = 0; k < offset; k++)
        if (s[k] == '\n') {
            l++;
            ls = k + 1;
        }
    *line = l;
    *col = (int)(offset - ls) + 1;
}

// The position of the name after `def`/`class`.
void tdx_src_def_name_pos(const tdx_src_module *m, const tdx_src_node *def, int *line, int *col)
{
    *line = *col = 0;
    if (!m || !def || (def->kind != TDX_SRC_FUNCDEF && def->kind != TDX_SRC_CLASSDEF))
        return;
    /* the first token of the node, by binary search on start offsets */
    size_t lo = 0, hi = m->toks.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->toks.items[mid].start < def->start)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* decorators hold expressions only, so the first `def`/`class` keyword
     * from here is this node's */
    for (size_t k = lo; k + 1 < m->toks.len && m->toks.items[k].start < def->end; k++) {
        const tdx_src_token *t = &m->toks.items[k];
        if (t->kind == TDX_TOK_NAME && (t->kw == TDX_KW_DEF || t->kw == TDX_KW_CLASS)) {
            *line = t[1].line;
            *col = t[1].col;
            return;
        }
    }
}

// The byte offset of a line:col position.
size_t tdx_src_offset(const tdx_src_module *m, int line, int col)
{
    if (!m || line < 1 || col < 1)
        return (size_t)-1;
    size_t off = 0;
    for (int l = 1; l < line; l++) {
        const char *nl = off < m->len ? memchr(m->src + off, '\n', m->len - off) : NULL;
        if (!nl)
            return (size_t)-1;
        off = (size_t)(nl - m->src) + 1;
    }
    const char *nl = off < m->len ? memchr(m->src + off, '\n', m->len - off) : NULL;
    size_t line_end = nl ? (size_t)(nl - m->src) : m->len;
    if (off + (size_t)col - 1 > line_end)
        return (size_t)-1;
    return off + (size_t)col - 1;
}

// Descend to the innermost node containing an offset.
tdx_src_node *tdx_src_node_at(const tdx_src_module *m, size_t offset)
{
    if (!m || !m->root || offset > m->len)
        return NULL;
    tdx_src_node *n = m->root;
    for (;;) {
        tdx_src_node *inner = NULL;
        for (uint32_t k = 0; k < n->nkids; k++) {
            tdx_src_node *kid = n->kids[k];
            if (kid->start <= offset && offset < kid->end) {
                inner = kid;
                break;
            }
            if (kid->start > offset)
                break;
        }
        if (!inner)
            return n;
        n = inner;
    }
}
