/* The expression half of the parser: recursive descent over Python's
 * expression grammar (Grammar/python.gram), one function per precedence
 * level, with spans taken from the first and last token of each rule.
 * Atoms, displays, arguments and parameters are in parse_atom.c. */
#include <string.h>

#include "source/parse_int.h"

static tdx_src_node *factor(parser *p);

// primary: atom followed by .name, (args) and [index] trailers.
static tdx_src_node *primary(parser *p)
{
    size_t s = p->i;
    tdx_src_node *n = tdx_src_p_atom(p);
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
            tdx_src_node *ix = tdx_src_p_slices(p);
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
        n = v ? tdx_src_p_wrap1(p, TDX_SRC_AWAIT, s, v, TDX_SRC_R_VALUE) : NULL;
    } else {
        n = primary(p);
    }
    if (!n || !at_op(p, TDX_OP_DSTAR))
        return n;
    size_t mark = p->sp;
    if (tdx_src_p_enter(p) < 0) /* a ** b ** c recurses to the right */
        return NULL;
    tdx_src_p_advance(p);
    if (tdx_src_p_push(p, n, TDX_SRC_R_LEFT) < 0)
        return tdx_src_p_leave(p, NULL);
    tdx_src_node *r = factor(p);
    if (!r || tdx_src_p_push(p, r, TDX_SRC_R_RIGHT) < 0)
        return tdx_src_p_leave(p, NULL);
    n = tdx_src_p_node(p, TDX_SRC_BINOP, s, mark);
    if (n)
        n->op = TDX_OP_DSTAR;
    return tdx_src_p_leave(p, n);
}

// factor: ('+' | '-' | '~') factor | power.
static tdx_src_node *factor(parser *p)
{
    if (!at_op(p, TDX_OP_PLUS) && !at_op(p, TDX_OP_MINUS) && !at_op(p, TDX_OP_TILDE))
        return power(p);
    size_t s = p->i;
    uint8_t op = cur(p)->op;
    if (tdx_src_p_enter(p) < 0)
        return NULL;
    tdx_src_p_advance(p);
    tdx_src_node *v = factor(p);
    tdx_src_node *n = v ? tdx_src_p_wrap1(p, TDX_SRC_UNARYOP, s, v, TDX_SRC_R_OPERAND) : NULL;
    if (n)
        n->op = op;
    return tdx_src_p_leave(p, n);
}

/* The binary precedence level of the operator at the current token, from
 * `*` (0, binds tightest) up to `|` (5), or -1. All are left-associative. */
static int level_of(const parser *p, tdx_src_op *op)
{
    if (cur(p)->kind != TDX_TOK_OP)
        return -1;
    switch ((tdx_src_op)cur(p)->op) {
    case TDX_OP_STAR: case TDX_OP_SLASH: case TDX_OP_DSLASH: case TDX_OP_PERCENT:
        *op = (tdx_src_op)cur(p)->op;
        return 0;
    case TDX_OP_AT:
        *op = TDX_OP_MATMUL;
        return 0;
    case TDX_OP_PLUS: case TDX_OP_MINUS:
        *op = (tdx_src_op)cur(p)->op;
        return 1;
    case TDX_OP_LSHIFT: case TDX_OP_RSHIFT:
        *op = (tdx_src_op)cur(p)->op;
        return 2;
    case TDX_OP_AMP:
        *op = TDX_OP_AMP;
        return 3;
    case TDX_OP_CARET:
        *op = TDX_OP_CARET;
        return 4;
    case TDX_OP_PIPE:
        *op = TDX_OP_PIPE;
        return 5;
    default:
        return -1;
    }
}

/* The binary operators of level lv and tighter, by precedence climbing: a
 * factor, then while the next operator's level l is at most lv, its right
 * operand is what binds tighter than l (left-associative). One call per
 * operator instead of one per level per operand. */
static tdx_src_node *binary(parser *p, int lv)
{
    size_t s = p->i;
    tdx_src_node *n = factor(p);
    tdx_src_op op = TDX_OP_NONE;
    int l;
    while (n && (l = level_of(p, &op)) >= 0 && l <= lv) {
        size_t mark = p->sp;
        tdx_src_p_advance(p);
        if (tdx_src_p_push(p, n, TDX_SRC_R_LEFT) < 0)
            return NULL;
        tdx_src_node *r = l == 0 ? factor(p) : binary(p, l - 1);
        if (!r || tdx_src_p_push(p, r, TDX_SRC_R_RIGHT) < 0)
            return NULL;
        n = tdx_src_p_node(p, TDX_SRC_BINOP, s, mark);
        if (n)
            n->op = (uint8_t)op;
    }
    return n;
}

// The `|` level, the operand level of comparisons and targets.
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
    if (tdx_src_p_enter(p) < 0)
        return NULL;
    tdx_src_p_advance(p);
    tdx_src_node *v = inversion(p);
    tdx_src_node *n = v ? tdx_src_p_wrap1(p, TDX_SRC_UNARYOP, s, v, TDX_SRC_R_OPERAND) : NULL;
    if (n)
        n->op = TDX_OP_NOT;
    return tdx_src_p_leave(p, n);
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

// The `and` level.
static tdx_src_node *conjunction(parser *p)
{
    return boolop(p, TDX_KW_AND, TDX_OP_AND, inversion);
}

// The `or` level.
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

// expression, counted as one nesting level.
tdx_src_node *tdx_src_p_expression(parser *p)
{
    if (tdx_src_p_enter(p) < 0)
        return NULL;
    return tdx_src_p_leave(p, expression(p));
}

// named_expression: NAME := expression, or an expression.
tdx_src_node *tdx_src_p_named(parser *p)
{
    if (at_name(p) && peek_at(p, 1)->kind == TDX_TOK_OP && peek_at(p, 1)->op == TDX_OP_WALRUS) {
        size_t s = p->i, mark = p->sp;
        tdx_src_node *t = tdx_src_p_atom(p);
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
tdx_src_node *tdx_src_p_star_named(parser *p)
{
    if (!at_op(p, TDX_OP_STAR))
        return tdx_src_p_named(p);
    size_t s = p->i;
    tdx_src_p_advance(p);
    tdx_src_node *v = tdx_src_p_bitor(p);
    tdx_src_node *n = v ? tdx_src_p_wrap1(p, TDX_SRC_STARRED, s, v, TDX_SRC_R_VALUE) : NULL;
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

// *x or an expression (an item of an expression list).
tdx_src_node *tdx_src_p_star_expression(parser *p)
{
    if (!at_op(p, TDX_OP_STAR))
        return tdx_src_p_expression(p);
    return tdx_src_p_star_named(p);
}

// An expression list: a TUPLE when it has a comma.
tdx_src_node *tdx_src_p_star_expressions(parser *p)
{
    return comma_list(p, tdx_src_p_star_expression, 0);
}

// A target item: *x or a `|`-level expression (so `in` is left alone).
static tdx_src_node *target_item(parser *p)
{
    if (at_op(p, TDX_OP_STAR))
        return tdx_src_p_star_named(p);
    return tdx_src_p_bitor(p);
}

// A target list of for and comprehensions (stops before `in`).
tdx_src_node *tdx_src_p_targets(parser *p) { return comma_list(p, target_item, 1); }

// One target (with items).
tdx_src_node *tdx_src_p_target(parser *p) { return target_item(p); }

// yield, yield from, with an optional value.
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
