/* Internal to the parser (parse_stmt.c, parse_expr.c): the parser state and
 * the small token and node helpers both halves use.
 *
 * Errors: a parse function returns NULL and leaves the first error in the
 * parser (err_tok, err_what). Only the outermost caller turns it into a
 * diagnostic, so that tolerant statements and backtracking can drop it. */
#ifndef TDX_SOURCE_PARSE_INT_H
#define TDX_SOURCE_PARSE_INT_H

#include "source/ast.h"
#include "source/token.h"

typedef struct parser {
    const char *path;
    const char *src;
    tdx_arena *arena;
    const tdx_src_token *t; /* tokens, ending with EOF */
    size_t n;
    size_t i;    /* current token */
    size_t last; /* last consumed token with text (not NEWLINE/INDENT/DEDENT) */
    int depth;   /* nesting of expressions and blocks */
    int strict;  /* inside a decorated def: errors are not tolerated */
    /* fatal: the error ends the parse (too deep, out of memory, or in a
     * decorated def); otherwise a tolerant statement may drop it */
    /* the pending error */
    int err;
    int fatal;
    size_t err_tok;
    const char *err_what; /* "expected ':'" style text, static */
    /* children of the nodes being built (a stack shared by all) */
    tdx_src_node **stk;
    size_t sp, cap;
    size_t nopaque;
} parser;

/* A saved position for backtracking. */
typedef struct pmark {
    size_t i, last, sp;
} pmark;

static inline const tdx_src_token *cur(const parser *p) { return &p->t[p->i]; }
static inline const tdx_src_token *peek_at(const parser *p, size_t k)
{
    return p->i + k < p->n ? &p->t[p->i + k] : &p->t[p->n - 1];
}
static inline int at_op(const parser *p, tdx_src_op op)
{
    return p->t[p->i].kind == TDX_TOK_OP && p->t[p->i].op == op;
}
static inline int at_kw(const parser *p, tdx_src_kw kw)
{
    return p->t[p->i].kind == TDX_TOK_NAME && p->t[p->i].kw == kw;
}
static inline int at_kind(const parser *p, tdx_src_tok_kind k) { return p->t[p->i].kind == k; }
static inline int at_name(const parser *p)
{
    return p->t[p->i].kind == TDX_TOK_NAME && p->t[p->i].kw == TDX_KW_NONE_;
}

static inline pmark pmark_save(const parser *p) { return (pmark){p->i, p->last, p->sp}; }
static inline void pmark_restore(parser *p, pmark m)
{
    p->i = m.i;
    p->last = m.last;
    p->sp = m.sp;
    p->err = 0;
}

/* Consume the current token (never past EOF). */
void tdx_src_p_advance(parser *p);
/* Record an error at the current token; returns NULL for `return fail(...)`. */
void *tdx_src_p_fail(parser *p, const char *what);
/* Record an error that ends the parse even in tolerant code. */
void *tdx_src_p_fatal(parser *p, const char *what);
/* Consume operator op or fail with what; returns 0 or -1. */
int tdx_src_p_expect(parser *p, tdx_src_op op, const char *what);
/* Push a finished child with its role onto the child stack; -1 when out of memory. */
int tdx_src_p_push(parser *p, tdx_src_node *kid, tdx_src_role role);
/* Make a node of kind spanning tokens [start_tok, last] with the children
 * pushed since mark; NULL (with an error) when out of memory or too tall. */
tdx_src_node *tdx_src_p_node(parser *p, tdx_src_kind kind, size_t start_tok, size_t mark);
/* The text of token k copied into the arena. */
char *tdx_src_p_tokdup(parser *p, size_t k);

/* Enter one nesting level (-1, a fatal error, past TDX_SRC_MAX_DEPTH);
 * leave it on every return, passing the result through. */
int tdx_src_p_enter(parser *p);
tdx_src_node *tdx_src_p_leave(parser *p, tdx_src_node *n);
/* A node with one child (of role) spanning from token start. */
tdx_src_node *tdx_src_p_wrap1(parser *p, tdx_src_kind kind, size_t start, tdx_src_node *kid,
                              tdx_src_role role);
/* A leaf node for the tokens consumed since start. */
tdx_src_node *tdx_src_p_leaf(parser *p, tdx_src_kind kind, size_t start);

/* Atoms and the like (parse_atom.c). */
tdx_src_node *tdx_src_p_atom(parser *p);   /* name, constant, literal, display */
tdx_src_node *tdx_src_p_slices(parser *p); /* the index of a subscript */

/* Statements (parse_stmt.c, parse_compound.c). */
int tdx_src_p_suite(parser *p, tdx_src_role role); /* ':' and a block */
int tdx_src_p_check_target(parser *p, const tdx_src_node *n, int aug);
/* A compound statement, or NULL with *is_compound 0 when there is none. */
tdx_src_node *tdx_src_p_compound(parser *p, int *is_compound);

/* Expressions (parse_expr.c). */
tdx_src_node *tdx_src_p_star_named(parser *p);      /* *x or a named expression */
tdx_src_node *tdx_src_p_star_expression(parser *p); /* *x or an expression */
tdx_src_node *tdx_src_p_expression(parser *p);       /* expression (incl. lambda, if-else) */
tdx_src_node *tdx_src_p_named(parser *p);            /* x := v or expression */
tdx_src_node *tdx_src_p_star_expressions(parser *p); /* a, *b, c -> TUPLE */
tdx_src_node *tdx_src_p_bitor(parser *p);            /* the `|` level */
tdx_src_node *tdx_src_p_disjunction(parser *p);      /* the `or` level */
tdx_src_node *tdx_src_p_targets(parser *p);          /* for-targets: a, (b, c) */
tdx_src_node *tdx_src_p_target(parser *p);           /* one target: *x or x.y[i] */
tdx_src_node *tdx_src_p_yield(parser *p);            /* yield [from] ... */
/* Call arguments up to (not including) `)`, pushed with role pos_role for
 * positional ones and KEYWORD for keywords. Returns 0 or -1. */
int tdx_src_p_call_args(parser *p, tdx_src_role pos_role);
/* Parameters of a def (annotations allowed) or a lambda up to `end`. */
int tdx_src_p_params(parser *p, tdx_src_op end, int lambda);

#endif
