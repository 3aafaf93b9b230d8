/* The parser's shared machinery: consuming tokens, recording errors,
 * counting nesting, and building nodes from the child stack. */
#include <stdlib.h>
#include <string.h>

#include "source/parse_int.h"

// Consume one token, remembering the last one with text.
void tdx_src_p_advance(parser *p)
{
    const tdx_src_token *t = &p->t[p->i];
    if (t->kind == TDX_TOK_EOF)
        return;
    if (t->kind >= TDX_TOK_NAME)
        p->last = p->i;
    p->i++;
}

// Record the first error of the current attempt.
void *tdx_src_p_fail(parser *p, const char *what)
{
    if (!p->err) {
        p->err = 1;
        p->err_tok = p->i;
        p->err_what = what;
    }
    return NULL;
}

// Record an error that ends the parse.
void *tdx_src_p_fatal(parser *p, const char *what)
{
    if (!p->err || !p->fatal) {
        p->err = 1;
        p->err_tok = p->i;
        p->err_what = what;
    }
    p->fatal = 1;
    return NULL;
}

// Consume an expected operator.
int tdx_src_p_expect(parser *p, tdx_src_op op, const char *what)
{
    if (!at_op(p, op)) {
        tdx_src_p_fail(p, what);
        return -1;
    }
    tdx_src_p_advance(p);
    return 0;
}

// Push a finished child onto the shared child stack.
int tdx_src_p_push(parser *p, tdx_src_node *kid, tdx_src_role role)
{
    if (p->sp == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        tdx_src_node **s = realloc(p->stk, cap * sizeof *s);
        if (!s) {
            tdx_src_p_fatal(p, "out of memory");
            return -1;
        }
        p->stk = s;
        p->cap = cap;
    }
    kid->role = (uint8_t)role;
    p->stk[p->sp++] = kid;
    return 0;
}

// Build a node from its first token, the last consumed token and the children since mark.
tdx_src_node *tdx_src_p_node(parser *p, tdx_src_kind kind, size_t start_tok, size_t mark)
{
    tdx_src_node *n = tdx_arena_alloc(p->arena, sizeof *n);
    size_t nk = p->sp - mark;
    if (!n || (nk && !(n->kids = tdx_arena_alloc(p->arena, nk * sizeof *n->kids))))
        return tdx_src_p_fatal(p, "out of memory");
    const tdx_src_token *a = &p->t[start_tok];
    /* the last consumed token with text; a node always has one, but stay
     * inside the source if a caller ever builds an empty one */
    const tdx_src_token *b = p->last >= start_tok ? &p->t[p->last] : a;
    n->kind = (uint8_t)kind;
    n->start = a->start;
    n->line = a->line;
    n->col = a->col;
    n->end = b->end;
    n->end_line = b->end_line;
    n->end_col = b->end_col;
    if (p->last < start_tok) {
        n->end = a->start;
        n->end_line = a->line;
        n->end_col = a->col;
    }
    n->nkids = (uint32_t)nk;
    unsigned height = 0;
    for (size_t k = 0; k < nk; k++) {
        tdx_src_node *kid = p->stk[mark + k];
        n->kids[k] = kid;
        kid->parent = n;
        kid->index = (uint32_t)k;
        if (kid->height > height)
            height = kid->height;
    }
    p->sp = mark;
    n->height = (uint16_t)(height + 1);
    if (height + 1 > TDX_SRC_MAX_HEIGHT)
        return tdx_src_p_fatal(p, "expression nested too deeply");
    return n;
}

// Copy a token's text into the arena.
char *tdx_src_p_tokdup(parser *p, size_t k)
{
    const tdx_src_token *t = &p->t[k];
    return tdx_arena_strndup(p->arena, p->src + t->start, t->end - t->start);
}

// Leave one nesting level; used on every return from a counted function.
tdx_src_node *tdx_src_p_leave(parser *p, tdx_src_node *n)
{
    p->depth--;
    return n;
}

// Enter one nesting level; a fatal error past TDX_SRC_MAX_DEPTH.
int tdx_src_p_enter(parser *p)
{
    if (++p->depth > TDX_SRC_MAX_DEPTH) {
        tdx_src_p_fatal(p, "too many nested levels");
        return -1;
    }
    return 0;
}

// A node with one child (role) spanning from start_tok.
tdx_src_node *tdx_src_p_wrap1(parser *p, tdx_src_kind kind, size_t start, tdx_src_node *kid,
                           tdx_src_role role)
{
    size_t mark = p->sp;
    if (tdx_src_p_push(p, kid, role) < 0)
        return NULL;
    return tdx_src_p_node(p, kind, start, mark);
}

// A leaf node for the token just consumed.
tdx_src_node *tdx_src_p_leaf(parser *p, tdx_src_kind kind, size_t start)
{
    return tdx_src_p_node(p, kind, start, p->sp);
}
