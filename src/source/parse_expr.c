/* The expression half of the parser: recursive descent over Python's
 * expression grammar (Grammar/python.gram), one function per precedence
 * level, with spans taken from the first and last token of each rule. */
#include <string.h>

#include "source/parse_int.h"

static tdx_src_node *star_named(parser *p);
static tdx_src_node *factor(parser *p);

// Leave one nesting level; used on every return from a counted function.
static tdx_src_node *leave(parser *p, tdx_src_node *n)
{
    p->depth--;
    return n;
}

// Enter one nesting level; a fatal error past TDX_SRC_MAX_DEPTH.
static int enter(parser *p)
{
    if (++p->depth > TDX_SRC_MAX_DEPTH) {
        tdx_src_p_fatal(p, "too many nested levels");
        return -1;
    }
    return 0;
}

// A node with one child (role) spanning from start_tok.
static tdx_src_node *wrap1(parser *p, tdx_src_kind kind, size_t start, tdx_src_node *kid,
                           tdx_src_role role)
{
    size_t mark = p->sp;
    if (tdx_src_p_push(p, kid, role) < 0)
        return NULL;
    return tdx_src_p_node(p, kind, start, mark);
}

// A leaf node for the token just consumed.
static tdx_src_node *leaf(parser *p, tdx_src_kind kind, size_t start)
{
    return tdx_src_p_node(p, kind, start, p->sp);
}

// The comprehension clauses `for t in it if c ...`, pushed as COMPFOR kids.
static int comp_fors(parser *p)
{
    while (at_kw(p, TDX_KW_FOR) || (at_kw(p, TDX_KW_ASYNC) && peek_at(p, 1)->kw == TDX_KW_FOR)) {
        size_t s = p->i, mark = p->sp;
        int async = at_kw(p, TDX_KW_ASYNC);
        if (async)
            tdx_src_p_advance(p);
        tdx_src_p_advance(p);
        tdx_src_node *t = tdx_src_p_targets(p);
        if (!t || tdx_src_p_push(p, t, TDX_SRC_R_TARGET) < 0)
            return -1;
        if (!at_kw(p, TDX_KW_IN)) {
            tdx_src_p_fail(p, "expected 'in'");
            return -1;
        }
        tdx_src_p_advance(p);
        tdx_src_node *it = tdx_src_p_disjunction(p);
        if (!it || tdx_src_p_push(p, it, TDX_SRC_R_ITER) < 0)
            return -1;
        while (at_kw(p, TDX_KW_IF)) {
            tdx_src_p_advance(p);
            tdx_src_node *c = tdx_src_p_disjunction(p);
            if (!c || tdx_src_p_push(p, c, TDX_SRC_R_IFCOND) < 0)
                return -1;
        }
        tdx_src_node *f = tdx_src_p_node(p, TDX_SRC_COMPFOR, s, mark);
        if (!f)
            return -1;
        if (async)
            f->flags |= TDX_SRC_F_ASYNC;
        if (tdx_src_p_push(p, f, TDX_SRC_R_GENERATOR) < 0)
            return -1;
    }
    return 0;
}

// After `(`: (), (x), (x,), (x, y), (x for ...), (yield x).
static tdx_src_node *paren(parser *p, size_t s)
{
    size_t mark = p->sp;
    if (at_op(p, TDX_OP_RPAR)) {
        tdx_src_p_advance(p);
        tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_TUPLE, s, mark);
        if (n)
            n->flags |= TDX_SRC_F_PAREN;
        return n;
    }
    if (at_kw(p, TDX_KW_YIELD)) {
        tdx_src_node *y = tdx_src_p_yield(p);
        if (!y || tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')'") < 0)
            return NULL;
        return y;
    }
    tdx_src_node *first = star_named(p);
    if (!first)
        return NULL;
    if (at_kw(p, TDX_KW_FOR) || at_kw(p, TDX_KW_ASYNC)) {
        if (tdx_src_p_push(p, first, TDX_SRC_R_ELT) < 0 || comp_fors(p) < 0 ||
            tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')'") < 0)
            return NULL;
        return tdx_src_p_node(p, TDX_SRC_GENEXP, s, mark);
    }
    if (at_op(p, TDX_OP_RPAR)) {
        tdx_src_p_advance(p);
        return first; /* a parenthesised expression keeps its own span */
    }
    if (tdx_src_p_push(p, first, TDX_SRC_R_ELT) < 0)
        return NULL;
    while (at_op(p, TDX_OP_COMMA)) {
        tdx_src_p_advance(p);
        if (at_op(p, TDX_OP_RPAR))
            break;
        tdx_src_node *e = star_named(p);
        if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
            return NULL;
    }
    if (tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')' or ','") < 0)
        return NULL;
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_TUPLE, s, mark);
    if (n)
        n->flags |= TDX_SRC_F_PAREN;
    return n;
}

// After `[`: [], [a, b], [x for ...].
static tdx_src_node *list(parser *p, size_t s)
{
    size_t mark = p->sp;
    if (at_op(p, TDX_OP_RSQB)) {
        tdx_src_p_advance(p);
        return tdx_src_p_node(p, TDX_SRC_LIST, s, mark);
    }
    tdx_src_node *first = star_named(p);
    if (!first || tdx_src_p_push(p, first, TDX_SRC_R_ELT) < 0)
        return NULL;
    if (at_kw(p, TDX_KW_FOR) || at_kw(p, TDX_KW_ASYNC)) {
        if (comp_fors(p) < 0 || tdx_src_p_expect(p, TDX_OP_RSQB, "expected ']'") < 0)
            return NULL;
        return tdx_src_p_node(p, TDX_SRC_LISTCOMP, s, mark);
    }
    while (at_op(p, TDX_OP_COMMA)) {
        tdx_src_p_advance(p);
        if (at_op(p, TDX_OP_RSQB))
            break;
        tdx_src_node *e = star_named(p);
        if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
            return NULL;
    }
    if (tdx_src_p_expect(p, TDX_OP_RSQB, "expected ']' or ','") < 0)
        return NULL;
    return tdx_src_p_node(p, TDX_SRC_LIST, s, mark);
}

// One dict entry `k: v` or `**d`, pushed; returns 0 or -1.
static int dict_entry(parser *p)
{
    if (at_op(p, TDX_OP_DSTAR)) {
        size_t s = p->i;
        tdx_src_p_advance(p);
        tdx_src_node *v = tdx_src_p_bitor(p);
        tdx_src_node *st = v ? wrap1(p, TDX_SRC_STARRED, s, v, TDX_SRC_R_VALUE) : NULL;
        if (!st)
            return -1;
        st->op = TDX_OP_DSTAR;
        return tdx_src_p_push(p, st, TDX_SRC_R_VALUE);
    }
    tdx_src_node *k = tdx_src_p_expression(p);
    if (!k || tdx_src_p_push(p, k, TDX_SRC_R_KEY) < 0 ||
        tdx_src_p_expect(p, TDX_OP_COLON, "expected ':'") < 0)
        return -1;
    tdx_src_node *v = tdx_src_p_expression(p);
    if (!v)
        return -1;
    return tdx_src_p_push(p, v, TDX_SRC_R_VALUE);
}

// After `{`: {}, {k: v, **d}, {a, b}, {k: v for ...}, {x for ...}.
static tdx_src_node *brace(parser *p, size_t s)
{
    size_t mark = p->sp;
    if (at_op(p, TDX_OP_RBRACE)) {
        tdx_src_p_advance(p);
        return tdx_src_p_node(p, TDX_SRC_DICT, s, mark);
    }
    int is_dict;
    if (at_op(p, TDX_OP_DSTAR)) {
        is_dict = 1;
        if (dict_entry(p) < 0)
            return NULL;
    } else {
        tdx_src_node *first = star_named(p);
        if (!first)
            return NULL;
        is_dict = at_op(p, TDX_OP_COLON);
        if (is_dict) {
            tdx_src_p_advance(p);
            tdx_src_node *v = tdx_src_p_expression(p);
            if (!v || tdx_src_p_push(p, first, TDX_SRC_R_KEY) < 0 ||
                tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
                return NULL;
        } else if (tdx_src_p_push(p, first, TDX_SRC_R_ELT) < 0) {
            return NULL;
        }
        if (at_kw(p, TDX_KW_FOR) || at_kw(p, TDX_KW_ASYNC)) {
            if (comp_fors(p) < 0 || tdx_src_p_expect(p, TDX_OP_RBRACE, "expected '}'") < 0)
                return NULL;
            return tdx_src_p_node(p, is_dict ? TDX_SRC_DICTCOMP : TDX_SRC_SETCOMP, s, mark);
        }
    }
    while (at_op(p, TDX_OP_COMMA)) {
        tdx_src_p_advance(p);
        if (at_op(p, TDX_OP_RBRACE))
            break;
        if (is_dict) {
            if (dict_entry(p) < 0)
                return NULL;
        } else {
            tdx_src_node *e = star_named(p);
            if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
                return NULL;
        }
    }
    if (tdx_src_p_expect(p, TDX_OP_RBRACE, "expected '}' or ','") < 0)
        return NULL;
    return tdx_src_p_node(p, is_dict ? TDX_SRC_DICT : TDX_SRC_SET, s, mark);
}

// An atom: name, constant, number, strings, or a bracketed display.
static tdx_src_node *atom(parser *p)
{
    const tdx_src_token *t = cur(p);
    size_t s = p->i;
    switch (t->kind) {
    case TDX_TOK_NAME:
        if (t->kw == TDX_KW_NONE || t->kw == TDX_KW_TRUE || t->kw == TDX_KW_FALSE) {
            tdx_src_p_advance(p);
            tdx_src_node *n = leaf(p, TDX_SRC_CONST, s);
            if (n)
                n->name = tdx_src_kw_str((tdx_src_kw)t->kw);
            return n;
        }
        if (t->kw != TDX_KW_NONE_)
            return tdx_src_p_fail(p, "expected an expression");
        tdx_src_p_advance(p);
        {
            tdx_src_node *n = leaf(p, TDX_SRC_NAME, s);
            if (n && !(n->name = tdx_src_p_tokdup(p, s)))
                return tdx_src_p_fatal(p, "out of memory");
            return n;
        }
    case TDX_TOK_NUMBER:
        tdx_src_p_advance(p);
        return leaf(p, TDX_SRC_NUMBER, s);
    case TDX_TOK_STRING: {
        int flags = 0;
        while (at_kind(p, TDX_TOK_STRING)) {
            flags |= cur(p)->flags;
            tdx_src_p_advance(p);
        }
        tdx_src_node *n = leaf(p, TDX_SRC_STRING, s);
        if (n) {
            if (flags & TDX_TOKF_FSTRING)
                n->flags |= TDX_SRC_F_FSTRING;
            if (flags & TDX_TOKF_BYTES)
                n->flags |= TDX_SRC_F_BYTES;
        }
        return n;
    }
    case TDX_TOK_OP:
        break;
    default:
        return tdx_src_p_fail(p, "expected an expression");
    }
    tdx_src_node *n = NULL;
    switch (t->op) {
    case TDX_OP_ELLIPSIS:
        tdx_src_p_advance(p);
        n = leaf(p, TDX_SRC_CONST, s);
        if (n)
            n->name = "...";
        return n;
    case TDX_OP_LPAR:
    case TDX_OP_LSQB:
    case TDX_OP_LBRACE:
        /* no depth count here: what is inside the brackets is parsed as an
         * expression, which counts one level per bracket */
        tdx_src_p_advance(p);
        return t->op == TDX_OP_LPAR ? paren(p, s) : t->op == TDX_OP_LSQB ? list(p, s) : brace(p, s);
    default:
        return tdx_src_p_fail(p, "expected an expression");
    }
}

// One subscript element: a slice `a:b:c` or an expression.
static tdx_src_node *slice(parser *p)
{
    size_t s = p->i, mark = p->sp;
    if (at_op(p, TDX_OP_STAR))
        return star_named(p);
    if (!at_op(p, TDX_OP_COLON)) {
        tdx_src_node *lo = tdx_src_p_named(p);
        if (!lo)
            return NULL;
        if (!at_op(p, TDX_OP_COLON))
            return lo;
        if (tdx_src_p_push(p, lo, TDX_SRC_R_LOWER) < 0)
            return NULL;
    }
    tdx_src_p_advance(p); /* the first ':' */
    if (!at_op(p, TDX_OP_COLON) && !at_op(p, TDX_OP_COMMA) && !at_op(p, TDX_OP_RSQB)) {
        tdx_src_node *hi = tdx_src_p_expression(p);
        if (!hi || tdx_src_p_push(p, hi, TDX_SRC_R_UPPER) < 0)
            return NULL;
    }
    if (at_op(p, TDX_OP_COLON)) {
        tdx_src_p_advance(p);
        if (!at_op(p, TDX_OP_COMMA) && !at_op(p, TDX_OP_RSQB)) {
            tdx_src_node *st = tdx_src_p_expression(p);
            if (!st || tdx_src_p_push(p, st, TDX_SRC_R_STEP) < 0)
                return NULL;
        }
    }
    return tdx_src_p_node(p, TDX_SRC_SLICE, s, mark);
}

// The index of a subscript: one slice, or several as an unparenthesised TUPLE.
static tdx_src_node *slices(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_node *first = slice(p);
    if (!first)
        return NULL;
    if (!at_op(p, TDX_OP_COMMA))
        return first;
    if (tdx_src_p_push(p, first, TDX_SRC_R_ELT) < 0)
        return NULL;
    while (at_op(p, TDX_OP_COMMA)) {
        tdx_src_p_advance(p);
        if (at_op(p, TDX_OP_RSQB))
            break;
        tdx_src_node *e = slice(p);
        if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
            return NULL;
    }
    return tdx_src_p_node(p, TDX_SRC_TUPLE, s, mark);
}

int tdx_src_p_call_args(parser *p, tdx_src_role pos_role)
{
    while (!at_op(p, TDX_OP_RPAR)) {
        size_t s = p->i;
        if (at_op(p, TDX_OP_DSTAR)) {
            size_t mark = p->sp;
            tdx_src_p_advance(p);
            tdx_src_node *v = tdx_src_p_expression(p);
            if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
                return -1;
            tdx_src_node *k = tdx_src_p_node(p, TDX_SRC_KEYWORD, s, mark);
            if (!k)
                return -1;
            k->flags |= TDX_SRC_F_DSTAR;
            if (tdx_src_p_push(p, k, TDX_SRC_R_KEYWORD) < 0)
                return -1;
        } else if (at_op(p, TDX_OP_STAR)) {
            /* in calls `*` takes a whole expression: f(*a if c else b) */
            tdx_src_p_advance(p);
            tdx_src_node *v = tdx_src_p_expression(p);
            tdx_src_node *st = v ? wrap1(p, TDX_SRC_STARRED, s, v, TDX_SRC_R_VALUE) : NULL;
            if (st)
                st->op = TDX_OP_STAR;
            if (!st || tdx_src_p_push(p, st, pos_role) < 0)
                return -1;
        } else if (cur(p)->kind == TDX_TOK_NAME && peek_at(p, 1)->kind == TDX_TOK_OP &&
                   peek_at(p, 1)->op == TDX_OP_EQUAL) {
            size_t mark = p->sp;
            char *name = tdx_src_p_tokdup(p, s);
            if (!name) {
                tdx_src_p_fatal(p, "out of memory");
                return -1;
            }
            if (cur(p)->kw != TDX_KW_NONE_) {
                tdx_src_p_fail(p, "expected an argument name");
                return -1;
            }
            tdx_src_p_advance(p);
            tdx_src_p_advance(p);
            tdx_src_node *v = tdx_src_p_expression(p);
            if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
                return -1;
            tdx_src_node *k = tdx_src_p_node(p, TDX_SRC_KEYWORD, s, mark);
            if (!k)
                return -1;
            k->name = name;
            if (tdx_src_p_push(p, k, TDX_SRC_R_KEYWORD) < 0)
                return -1;
        } else {
            tdx_src_node *e = tdx_src_p_named(p);
            if (!e)
                return -1;
            if (at_kw(p, TDX_KW_FOR) || at_kw(p, TDX_KW_ASYNC)) {
                /* f(x for x in y): a bare generator as the argument */
                size_t mark = p->sp;
                if (tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0 || comp_fors(p) < 0)
                    return -1;
                e = tdx_src_p_node(p, TDX_SRC_GENEXP, s, mark);
                if (!e)
                    return -1;
            }
            if (tdx_src_p_push(p, e, pos_role) < 0)
                return -1;
        }
        if (!at_op(p, TDX_OP_COMMA))
            break;
        tdx_src_p_advance(p);
    }
    return 0;
}

// primary: atom followed by .name, (args) and [index] trailers.
static tdx_src_node *primary(parser *p)
{
    size_t s = p->i;
    tdx_src_node *n = atom(p);
    while (n) {
        size_t mark = p->sp;
        if (at_op(p, TDX_OP_DOT)) {
            tdx_src_p_advance(p);
            if (cur(p)->kind != TDX_TOK_NAME)
                return tdx_src_p_fail(p, "expected a name after '.'");
            size_t k = p->i;
            tdx_src_p_advance(p);
            if (tdx_src_p_push(p, n, TDX_SRC_R_VALUE) < 0)
                return NULL;
            n = tdx_src_p_node(p, TDX_SRC_ATTRIBUTE, s, mark);
            if (n && !(n->name = tdx_src_p_tokdup(p, k)))
                return tdx_src_p_fatal(p, "out of memory");
        } else if (at_op(p, TDX_OP_LPAR)) {
            tdx_src_p_advance(p);
            if (tdx_src_p_push(p, n, TDX_SRC_R_FUNC) < 0 ||
                tdx_src_p_call_args(p, TDX_SRC_R_ARG) < 0 ||
                tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')' or ','") < 0)
                return NULL;
            n = tdx_src_p_node(p, TDX_SRC_CALL, s, mark);
        } else if (at_op(p, TDX_OP_LSQB)) {
            tdx_src_p_advance(p);
            if (tdx_src_p_push(p, n, TDX_SRC_R_VALUE) < 0)
                return NULL;
            tdx_src_node *ix = slices(p);
            if (!ix || tdx_src_p_push(p, ix, TDX_SRC_R_INDEX) < 0 ||
                tdx_src_p_expect(p, TDX_OP_RSQB, "expected ']'") < 0)
                return NULL;
            n = tdx_src_p_node(p, TDX_SRC_SUBSCRIPT, s, mark);
        } else {
            break;
        }
    }
    return n;
}

// power: [await] primary ['**' factor] (right-associative through factor).
static tdx_src_node *power(parser *p)
{
    size_t s = p->i;
    tdx_src_node *n;
    if (at_kw(p, TDX_KW_AWAIT)) {
        tdx_src_p_advance(p);
        tdx_src_node *v = primary(p);
        n = v ? wrap1(p, TDX_SRC_AWAIT, s, v, TDX_SRC_R_VALUE) : NULL;
    } else {
        n = primary(p);
    }
    if (!n || !at_op(p, TDX_OP_DSTAR))
        return n;
    size_t mark = p->sp;
    if (enter(p) < 0) /* a ** b ** c recurses to the right */
        return NULL;
    tdx_src_p_advance(p);
    if (tdx_src_p_push(p, n, TDX_SRC_R_LEFT) < 0)
        return leave(p, NULL);
    tdx_src_node *r = factor(p);
    if (!r || tdx_src_p_push(p, r, TDX_SRC_R_RIGHT) < 0)
        return leave(p, NULL);
    n = tdx_src_p_node(p, TDX_SRC_BINOP, s, mark);
    if (n)
        n->op = TDX_OP_DSTAR;
    return leave(p, n);
}

// factor: ('+' | '-' | '~') factor | power.
static tdx_src_node *factor(parser *p)
{
    if (!at_op(p, TDX_OP_PLUS) && !at_op(p, TDX_OP_MINUS) && !at_op(p, TDX_OP_TILDE))
        return power(p);
    size_t s = p->i;
    uint8_t op = cur(p)->op;
    if (enter(p) < 0)
        return NULL;
    tdx_src_p_advance(p);
    tdx_src_node *v = factor(p);
    tdx_src_node *n = v ? wrap1(p, TDX_SRC_UNARYOP, s, v, TDX_SRC_R_OPERAND) : NULL;
    if (n)
        n->op = op;
    return leave(p, n);
}

/* The binary precedence levels from `*` up to `|`, lowest index binds
 * tightest. Each is left-associative. */
static const tdx_src_op level_ops[][6] = {
    {TDX_OP_STAR, TDX_OP_SLASH, TDX_OP_DSLASH, TDX_OP_PERCENT, TDX_OP_AT, 0},
    {TDX_OP_PLUS, TDX_OP_MINUS, 0},
    {TDX_OP_LSHIFT, TDX_OP_RSHIFT, 0},
    {TDX_OP_AMP, 0},
    {TDX_OP_CARET, 0},
    {TDX_OP_PIPE, 0},
};

// The operator of level lv at the current token, or 0.
static tdx_src_op level_op(const parser *p, int lv)
{
    if (cur(p)->kind != TDX_TOK_OP)
        return TDX_OP_NONE;
    for (const tdx_src_op *o = level_ops[lv]; *o; o++)
        if (cur(p)->op == *o)
            return *o == TDX_OP_AT ? TDX_OP_MATMUL : *o;
    return TDX_OP_NONE;
}

// A left-associative binary level (0 = `*`, 5 = `|`).
static tdx_src_node *binary(parser *p, int lv)
{
    size_t s = p->i;
    tdx_src_node *n = lv == 0 ? factor(p) : binary(p, lv - 1);
    tdx_src_op op;
    while (n && (op = level_op(p, lv)) != TDX_OP_NONE) {
        size_t mark = p->sp;
        tdx_src_p_advance(p);
        if (tdx_src_p_push(p, n, TDX_SRC_R_LEFT) < 0)
            return NULL;
        tdx_src_node *r = lv == 0 ? factor(p) : binary(p, lv - 1);
        if (!r || tdx_src_p_push(p, r, TDX_SRC_R_RIGHT) < 0)
            return NULL;
        n = tdx_src_p_node(p, TDX_SRC_BINOP, s, mark);
        if (n)
            n->op = (uint8_t)op;
    }
    return n;
}

tdx_src_node *tdx_src_p_bitor(parser *p) { return binary(p, 5); }

// The comparison operator at the current token (consuming `not in` and
// `is not` as one), or 0.
static tdx_src_op compare_op(parser *p)
{
    const tdx_src_token *t = cur(p);
    if (t->kind == TDX_TOK_OP) {
        switch (t->op) {
        case TDX_OP_LT: case TDX_OP_GT: case TDX_OP_LE: case TDX_OP_GE: case TDX_OP_EQ:
        case TDX_OP_NE:
            tdx_src_p_advance(p);
            return (tdx_src_op)t->op;
        default:
            return TDX_OP_NONE;
        }
    }
    if (t->kind != TDX_TOK_NAME)
        return TDX_OP_NONE;
    if (t->kw == TDX_KW_IN) {
        tdx_src_p_advance(p);
        return TDX_OP_IN;
    }
    if (t->kw == TDX_KW_NOT && peek_at(p, 1)->kw == TDX_KW_IN) {
        tdx_src_p_advance(p);
        tdx_src_p_advance(p);
        return TDX_OP_NOT_IN;
    }
    if (t->kw == TDX_KW_IS) {
        tdx_src_p_advance(p);
        if (at_kw(p, TDX_KW_NOT)) {
            tdx_src_p_advance(p);
            return TDX_OP_IS_NOT;
        }
        return TDX_OP_IS;
    }
    return TDX_OP_NONE;
}

// comparison: bitor (compare_op bitor)*, one COMPARE node for a chain.
static tdx_src_node *comparison(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_node *first = tdx_src_p_bitor(p);
    if (!first)
        return NULL;
    tdx_src_op op = compare_op(p);
    if (op == TDX_OP_NONE)
        return first;
    uint8_t ops[64], *dyn = NULL;
    size_t nops = 0, capops = sizeof ops;
    uint8_t *opv = ops;
    if (tdx_src_p_push(p, first, TDX_SRC_R_OPERAND) < 0)
        return NULL;
    tdx_src_node *n = NULL;
    while (op != TDX_OP_NONE) {
        if (nops == capops) {
            /* long chains are rare: move to the arena and double */
            uint8_t *bigger = tdx_arena_alloc(p->arena, capops * 2);
            if (!bigger)
                return tdx_src_p_fatal(p, "out of memory");
            memcpy(bigger, opv, nops);
            opv = dyn = bigger;
            capops *= 2;
        }
        opv[nops++] = (uint8_t)op;
        tdx_src_node *r = tdx_src_p_bitor(p);
        if (!r || tdx_src_p_push(p, r, TDX_SRC_R_OPERAND) < 0)
            return NULL;
        op = compare_op(p);
    }
    n = tdx_src_p_node(p, TDX_SRC_COMPARE, s, mark);
    if (!n)
        return NULL;
    n->ops = dyn ? dyn : tdx_arena_alloc(p->arena, nops);
    if (!n->ops)
        return tdx_src_p_fatal(p, "out of memory");
    if (!dyn)
        memcpy(n->ops, ops, nops);
    return n;
}

// inversion: 'not' inversion | comparison.
static tdx_src_node *inversion(parser *p)
{
    if (!at_kw(p, TDX_KW_NOT))
        return comparison(p);
    size_t s = p->i;
    if (enter(p) < 0)
        return NULL;
    tdx_src_p_advance(p);
    tdx_src_node *v = inversion(p);
    tdx_src_node *n = v ? wrap1(p, TDX_SRC_UNARYOP, s, v, TDX_SRC_R_OPERAND) : NULL;
    if (n)
        n->op = TDX_OP_NOT;
    return leave(p, n);
}

// A flattened boolean chain of `kw` over sub-expressions parsed by sub.
static tdx_src_node *boolop(parser *p, tdx_src_kw kw, tdx_src_op op,
                            tdx_src_node *(*sub)(parser *))
{
    size_t s = p->i, mark = p->sp;
    tdx_src_node *first = sub(p);
    if (!first || !at_kw(p, kw))
        return first;
    if (tdx_src_p_push(p, first, TDX_SRC_R_OPERAND) < 0)
        return NULL;
    while (at_kw(p, kw)) {
        tdx_src_p_advance(p);
        tdx_src_node *r = sub(p);
        if (!r || tdx_src_p_push(p, r, TDX_SRC_R_OPERAND) < 0)
            return NULL;
    }
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_BOOLOP, s, mark);
    if (n)
        n->op = (uint8_t)op;
    return n;
}

static tdx_src_node *conjunction(parser *p)
{
    return boolop(p, TDX_KW_AND, TDX_OP_AND, inversion);
}

tdx_src_node *tdx_src_p_disjunction(parser *p)
{
    return boolop(p, TDX_KW_OR, TDX_OP_OR, conjunction);
}

// lambda [params]: body
static tdx_src_node *lambdef(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_p_advance(p);
    if (tdx_src_p_params(p, TDX_OP_COLON, 1) < 0 ||
        tdx_src_p_expect(p, TDX_OP_COLON, "expected ':'") < 0)
        return NULL;
    tdx_src_node *body = tdx_src_p_expression(p);
    if (!body || tdx_src_p_push(p, body, TDX_SRC_R_BODY) < 0)
        return NULL;
    return tdx_src_p_node(p, TDX_SRC_LAMBDA, s, mark);
}

// expression: lambda | disjunction ['if' disjunction 'else' expression].
static tdx_src_node *expression(parser *p)
{
    if (at_kw(p, TDX_KW_LAMBDA))
        return lambdef(p);
    size_t s = p->i, mark = p->sp;
    tdx_src_node *body = tdx_src_p_disjunction(p);
    if (!body || !at_kw(p, TDX_KW_IF))
        return body;
    tdx_src_p_advance(p);
    if (tdx_src_p_push(p, body, TDX_SRC_R_BODY) < 0)
        return NULL;
    tdx_src_node *test = tdx_src_p_disjunction(p);
    if (!test || tdx_src_p_push(p, test, TDX_SRC_R_TEST) < 0)
        return NULL;
    if (!at_kw(p, TDX_KW_ELSE))
        return tdx_src_p_fail(p, "expected 'else' after 'if' expression");
    tdx_src_p_advance(p);
    tdx_src_node *orelse = tdx_src_p_expression(p);
    if (!orelse || tdx_src_p_push(p, orelse, TDX_SRC_R_ORELSE) < 0)
        return NULL;
    return tdx_src_p_node(p, TDX_SRC_IFEXP, s, mark);
}

tdx_src_node *tdx_src_p_expression(parser *p)
{
    if (enter(p) < 0)
        return NULL;
    return leave(p, expression(p));
}

tdx_src_node *tdx_src_p_named(parser *p)
{
    if (at_name(p) && peek_at(p, 1)->kind == TDX_TOK_OP && peek_at(p, 1)->op == TDX_OP_WALRUS) {
        size_t s = p->i, mark = p->sp;
        tdx_src_node *t = atom(p);
        if (!t || tdx_src_p_push(p, t, TDX_SRC_R_TARGET) < 0)
            return NULL;
        tdx_src_p_advance(p);
        tdx_src_node *v = tdx_src_p_expression(p);
        if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
            return NULL;
        return tdx_src_p_node(p, TDX_SRC_NAMEDEXPR, s, mark);
    }
    return tdx_src_p_expression(p);
}

// star_named_expression: '*' bitor | named_expression.
static tdx_src_node *star_named(parser *p)
{
    if (!at_op(p, TDX_OP_STAR))
        return tdx_src_p_named(p);
    size_t s = p->i;
    tdx_src_p_advance(p);
    tdx_src_node *v = tdx_src_p_bitor(p);
    tdx_src_node *n = v ? wrap1(p, TDX_SRC_STARRED, s, v, TDX_SRC_R_VALUE) : NULL;
    if (n)
        n->op = TDX_OP_STAR;
    return n;
}

// A comma list of items parsed by item; a TUPLE when there is a comma.
static tdx_src_node *comma_list(parser *p, tdx_src_node *(*item)(parser *), int stop_at_in)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_node *first = item(p);
    if (!first || !at_op(p, TDX_OP_COMMA))
        return first;
    if (tdx_src_p_push(p, first, TDX_SRC_R_ELT) < 0)
        return NULL;
    while (at_op(p, TDX_OP_COMMA)) {
        tdx_src_p_advance(p);
        const tdx_src_token *t = cur(p);
        /* a trailing comma ends the list before `=`, `)`, a newline, ... */
        if (t->kind == TDX_TOK_NEWLINE || t->kind == TDX_TOK_EOF ||
            (t->kind == TDX_TOK_OP &&
             (t->op == TDX_OP_EQUAL || t->op == TDX_OP_RPAR || t->op == TDX_OP_RSQB ||
              t->op == TDX_OP_RBRACE || t->op == TDX_OP_COLON || t->op == TDX_OP_SEMI ||
              (t->op >= TDX_OP_PLUSEQ && t->op <= TDX_OP_CARETEQ))) ||
            (stop_at_in && t->kw == TDX_KW_IN))
            break;
        tdx_src_node *e = item(p);
        if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
            return NULL;
    }
    return tdx_src_p_node(p, TDX_SRC_TUPLE, s, mark);
}

static tdx_src_node *star_expression(parser *p)
{
    if (!at_op(p, TDX_OP_STAR))
        return tdx_src_p_expression(p);
    return star_named(p);
}

tdx_src_node *tdx_src_p_star_expressions(parser *p)
{
    return comma_list(p, star_expression, 0);
}

// A target item: *x or a `|`-level expression (so `in` is left alone).
static tdx_src_node *target_item(parser *p)
{
    if (at_op(p, TDX_OP_STAR))
        return star_named(p);
    return tdx_src_p_bitor(p);
}

tdx_src_node *tdx_src_p_targets(parser *p) { return comma_list(p, target_item, 1); }

tdx_src_node *tdx_src_p_target(parser *p) { return target_item(p); }

tdx_src_node *tdx_src_p_yield(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_p_advance(p);
    int from = 0;
    if (at_kw(p, TDX_KW_FROM)) {
        from = 1;
        tdx_src_p_advance(p);
        tdx_src_node *v = tdx_src_p_expression(p);
        if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
            return NULL;
    } else {
        const tdx_src_token *t = cur(p);
        int ends = t->kind == TDX_TOK_NEWLINE || t->kind == TDX_TOK_EOF ||
                   (t->kind == TDX_TOK_OP && (t->op == TDX_OP_RPAR || t->op == TDX_OP_SEMI ||
                                              t->op == TDX_OP_EQUAL || t->op == TDX_OP_RSQB ||
                                              t->op == TDX_OP_RBRACE));
        if (!ends) {
            tdx_src_node *v = tdx_src_p_star_expressions(p);
            if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
                return NULL;
        }
    }
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_YIELD, s, mark);
    if (n && from)
        n->flags |= TDX_SRC_F_FROM;
    return n;
}

int tdx_src_p_params(parser *p, tdx_src_op end, int lambda)
{
    while (!at_op(p, end)) {
        size_t s = p->i, mark = p->sp;
        int flags = 0;
        char *name = NULL;
        if (at_op(p, TDX_OP_SLASH)) {
            flags = TDX_SRC_F_SLASH;
            tdx_src_p_advance(p);
        } else {
            if (at_op(p, TDX_OP_STAR) || at_op(p, TDX_OP_DSTAR)) {
                flags = at_op(p, TDX_OP_STAR) ? TDX_SRC_F_STAR : TDX_SRC_F_DSTAR;
                tdx_src_p_advance(p);
            }
            if (at_name(p)) {
                if (!(name = tdx_src_p_tokdup(p, p->i))) {
                    tdx_src_p_fatal(p, "out of memory");
                    return -1;
                }
                tdx_src_p_advance(p);
            } else if (flags != TDX_SRC_F_STAR) {
                tdx_src_p_fail(p, "expected a parameter name");
                return -1;
            }
            if (name && !lambda && at_op(p, TDX_OP_COLON)) {
                tdx_src_p_advance(p);
                tdx_src_node *a = star_expression(p);
                if (!a || tdx_src_p_push(p, a, TDX_SRC_R_ANNOTATION) < 0)
                    return -1;
            }
            if (name && !(flags & TDX_SRC_F_DSTAR) && at_op(p, TDX_OP_EQUAL)) {
                tdx_src_p_advance(p);
                tdx_src_node *d = tdx_src_p_expression(p);
                if (!d || tdx_src_p_push(p, d, TDX_SRC_R_DEFAULT) < 0)
                    return -1;
            }
        }
        tdx_src_node *prm = tdx_src_p_node(p, TDX_SRC_PARAM, s, mark);
        if (!prm)
            return -1;
        prm->name = name;
        prm->flags |= (uint16_t)flags;
        if (tdx_src_p_push(p, prm, TDX_SRC_R_PARAM) < 0)
            return -1;
        if (!at_op(p, TDX_OP_COMMA))
            break;
        tdx_src_p_advance(p);
    }
    return 0;
}
