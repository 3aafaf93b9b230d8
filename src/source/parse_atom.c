/* The innermost expressions: atoms, bracketed displays and comprehensions,
 * subscripts, call arguments and def/lambda parameters. */
#include <string.h>

#include "source/parse_int.h"

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
    tdx_src_node *first = tdx_src_p_star_named(p);
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
        tdx_src_node *e = tdx_src_p_star_named(p);
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
    tdx_src_node *first = tdx_src_p_star_named(p);
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
        tdx_src_node *e = tdx_src_p_star_named(p);
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
        tdx_src_node *st = v ? tdx_src_p_wrap1(p, TDX_SRC_STARRED, s, v, TDX_SRC_R_VALUE) : NULL;
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
        tdx_src_node *first = tdx_src_p_star_named(p);
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
            tdx_src_node *e = tdx_src_p_star_named(p);
            if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
                return NULL;
        }
    }
    if (tdx_src_p_expect(p, TDX_OP_RBRACE, "expected '}' or ','") < 0)
        return NULL;
    return tdx_src_p_node(p, is_dict ? TDX_SRC_DICT : TDX_SRC_SET, s, mark);
}

// An atom: name, constant, number, strings, or a bracketed display.
tdx_src_node *tdx_src_p_atom(parser *p)
{
    const tdx_src_token *t = cur(p);
    size_t s = p->i;
    switch (t->kind) {
    case TDX_TOK_NAME:
        if (t->kw == TDX_KW_NONE || t->kw == TDX_KW_TRUE || t->kw == TDX_KW_FALSE) {
            tdx_src_p_advance(p);
            tdx_src_node *n = tdx_src_p_leaf(p, TDX_SRC_CONST, s);
            if (n)
                n->name = tdx_src_kw_str((tdx_src_kw)t->kw);
            return n;
        }
        if (t->kw != TDX_KW_NONE_)
            return tdx_src_p_fail(p, "expected an expression");
        tdx_src_p_advance(p);
        {
            tdx_src_node *n = tdx_src_p_leaf(p, TDX_SRC_NAME, s);
            if (n && !(n->name = tdx_src_p_tokdup(p, s)))
                return tdx_src_p_fatal(p, "out of memory");
            return n;
        }
    case TDX_TOK_NUMBER:
        tdx_src_p_advance(p);
        return tdx_src_p_leaf(p, TDX_SRC_NUMBER, s);
    case TDX_TOK_STRING: {
        int flags = 0;
        while (at_kind(p, TDX_TOK_STRING)) {
            flags |= cur(p)->flags;
            tdx_src_p_advance(p);
        }
        tdx_src_node *n = tdx_src_p_leaf(p, TDX_SRC_STRING, s);
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
        n = tdx_src_p_leaf(p, TDX_SRC_CONST, s);
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
        return tdx_src_p_star_named(p);
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
tdx_src_node *tdx_src_p_slices(parser *p)
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

// Call arguments (or class bases and keywords) up to the closing parenthesis.
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
            tdx_src_node *st = v ? tdx_src_p_wrap1(p, TDX_SRC_STARRED, s, v, TDX_SRC_R_VALUE) : NULL;
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

// Parameters of a def or a lambda: name[: annotation][= default], *, /, *a, **k.
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
                tdx_src_node *a = tdx_src_p_star_expression(p);
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
