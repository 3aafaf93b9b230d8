/* Compound statements: if/elif/else, for, while, with, try, and def and
 * class with their decorators. A decorated def is parsed strictly. */
#include <string.h>

#include "source/parse_int.h"

// An `else:` / `finally:` clause if present, its statements pushed with role.
static int opt_clause(parser *p, tdx_src_kw kw, tdx_src_role role)
{
    if (!at_kw(p, kw))
        return 0;
    tdx_src_p_advance(p);
    return tdx_src_p_suite(p, role);
}

// if / elif chain: the elif is a nested IF in the orelse.
static tdx_src_node *if_stmt(parser *p)
{
    size_t s = p->i, mark = p->sp;
    int elif = at_kw(p, TDX_KW_ELIF);
    tdx_src_p_advance(p);
    tdx_src_node *test = tdx_src_p_named(p);
    if (!test || tdx_src_p_push(p, test, TDX_SRC_R_TEST) < 0 || tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0)
        return NULL;
    if (at_kw(p, TDX_KW_ELIF)) {
        tdx_src_node *e = if_stmt(p);
        if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ORELSE) < 0)
            return NULL;
    } else if (opt_clause(p, TDX_KW_ELSE, TDX_SRC_R_ORELSE) < 0) {
        return NULL;
    }
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_IF, s, mark);
    if (n && elif)
        n->flags |= TDX_SRC_F_ELIF;
    return n;
}

// One `expr [as target]` of a with statement, pushed.
static int with_item(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_node *v = tdx_src_p_expression(p);
    if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
        return -1;
    if (at_kw(p, TDX_KW_AS)) {
        tdx_src_p_advance(p);
        tdx_src_node *t = tdx_src_p_target(p);
        if (!t || tdx_src_p_push(p, t, TDX_SRC_R_TARGET) < 0)
            return -1;
    }
    tdx_src_node *it = tdx_src_p_node(p, TDX_SRC_WITHITEM, s, mark);
    return it ? tdx_src_p_push(p, it, TDX_SRC_R_ITEM) : -1;
}

// with a as b, c:  |  with (a as b, c):
static int with_items(parser *p)
{
    if (at_op(p, TDX_OP_LPAR)) {
        /* the parenthesised form, tried first and dropped if the text is
         * really `with (a, b) as c:` or `with (a).b:` */
        pmark m = pmark_save(p);
        tdx_src_p_advance(p);
        int ok = 1;
        for (;;) {
            if (with_item(p) < 0) {
                ok = 0;
                break;
            }
            if (!at_op(p, TDX_OP_COMMA))
                break;
            tdx_src_p_advance(p);
            if (at_op(p, TDX_OP_RPAR))
                break;
        }
        ok = ok && at_op(p, TDX_OP_RPAR) && peek_at(p, 1)->kind == TDX_TOK_OP &&
             peek_at(p, 1)->op == TDX_OP_COLON;
        if (ok && !p->fatal) {
            tdx_src_p_advance(p);
            return 0;
        }
        if (p->fatal)
            return -1;
        pmark_restore(p, m);
    }
    for (;;) {
        if (with_item(p) < 0)
            return -1;
        if (!at_op(p, TDX_OP_COMMA))
            return 0;
        tdx_src_p_advance(p);
    }
}

// try: ... except [T [as e]]: ... else: ... finally: ...
static tdx_src_node *try_stmt(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_p_advance(p);
    if (tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0)
        return NULL;
    int handlers = 0;
    while (at_kw(p, TDX_KW_EXCEPT)) {
        size_t hs = p->i, hm = p->sp;
        tdx_src_p_advance(p);
        int star = 0;
        if (at_op(p, TDX_OP_STAR)) {
            star = 1;
            tdx_src_p_advance(p);
        }
        char *name = NULL;
        if (!at_op(p, TDX_OP_COLON)) {
            size_t ts = p->i;
            tdx_src_node *ty = tdx_src_p_expression(p);
            if (!ty)
                return NULL;
            if (at_op(p, TDX_OP_COMMA)) {
                /* except A, B: (Python 3.14) as one unparenthesised tuple */
                size_t tm = p->sp;
                if (tdx_src_p_push(p, ty, TDX_SRC_R_ELT) < 0)
                    return NULL;
                while (at_op(p, TDX_OP_COMMA)) {
                    tdx_src_p_advance(p);
                    tdx_src_node *e = tdx_src_p_expression(p);
                    if (!e || tdx_src_p_push(p, e, TDX_SRC_R_ELT) < 0)
                        return NULL;
                }
                ty = tdx_src_p_node(p, TDX_SRC_TUPLE, ts, tm);
                if (!ty)
                    return NULL;
            }
            if (tdx_src_p_push(p, ty, TDX_SRC_R_TYPE) < 0)
                return NULL;
            if (at_kw(p, TDX_KW_AS)) {
                tdx_src_p_advance(p);
                if (!at_name(p))
                    return tdx_src_p_fail(p, "expected a name after 'as'");
                name = tdx_src_p_tokdup(p, p->i);
                tdx_src_p_advance(p);
            }
        }
        if (tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0)
            return NULL;
        tdx_src_node *h = tdx_src_p_node(p, TDX_SRC_EXCEPT, hs, hm);
        if (!h)
            return NULL;
        h->name = name;
        if (star)
            h->flags |= TDX_SRC_F_STAR;
        if (tdx_src_p_push(p, h, TDX_SRC_R_HANDLER) < 0)
            return NULL;
        handlers++;
    }
    if (handlers && opt_clause(p, TDX_KW_ELSE, TDX_SRC_R_ORELSE) < 0)
        return NULL;
    int fin = at_kw(p, TDX_KW_FINALLY);
    if (opt_clause(p, TDX_KW_FINALLY, TDX_SRC_R_FINALBODY) < 0)
        return NULL;
    if (!handlers && !fin)
        return tdx_src_p_fail(p, "expected 'except' or 'finally'");
    return tdx_src_p_node(p, TDX_SRC_TRY, s, mark);
}

// def name(params) [-> ret]: body, after its decorators (pushed since mark).
static tdx_src_node *funcdef(parser *p, size_t s, size_t mark, int async)
{
    tdx_src_p_advance(p); /* def */
    if (!at_name(p))
        return tdx_src_p_fail(p, "expected a function name");
    char *name = tdx_src_p_tokdup(p, p->i);
    tdx_src_p_advance(p);
    if (tdx_src_p_expect(p, TDX_OP_LPAR, "expected '('") < 0 ||
        tdx_src_p_params(p, TDX_OP_RPAR, 0) < 0 ||
        tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')' or ','") < 0)
        return NULL;
    if (at_op(p, TDX_OP_ARROW)) {
        tdx_src_p_advance(p);
        tdx_src_node *r = tdx_src_p_expression(p);
        if (!r || tdx_src_p_push(p, r, TDX_SRC_R_RETURNS) < 0)
            return NULL;
    }
    if (tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0)
        return NULL;
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_FUNCDEF, s, mark);
    if (n) {
        n->name = name;
        if (async)
            n->flags |= TDX_SRC_F_ASYNC;
    }
    return n;
}

// class name[(bases, keywords)]: body, after its decorators.
static tdx_src_node *classdef(parser *p, size_t s, size_t mark)
{
    tdx_src_p_advance(p); /* class */
    if (!at_name(p))
        return tdx_src_p_fail(p, "expected a class name");
    char *name = tdx_src_p_tokdup(p, p->i);
    tdx_src_p_advance(p);
    if (at_op(p, TDX_OP_LPAR)) {
        tdx_src_p_advance(p);
        if (tdx_src_p_call_args(p, TDX_SRC_R_BASE) < 0 ||
            tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')' or ','") < 0)
            return NULL;
    }
    if (tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0)
        return NULL;
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_CLASSDEF, s, mark);
    if (n)
        n->name = name;
    return n;
}

// Decorators, then the def or class they decorate. A decorated def is
// parsed strictly: it is where kernels live.
static tdx_src_node *decorated(parser *p)
{
    size_t s = p->i, mark = p->sp;
    while (at_op(p, TDX_OP_AT)) {
        size_t ds = p->i, dm = p->sp;
        tdx_src_p_advance(p);
        tdx_src_node *e = tdx_src_p_named(p);
        if (!e || tdx_src_p_push(p, e, TDX_SRC_R_VALUE) < 0)
            return NULL;
        tdx_src_node *d = tdx_src_p_node(p, TDX_SRC_DECORATOR, ds, dm);
        if (!d || tdx_src_p_push(p, d, TDX_SRC_R_DECORATOR) < 0)
            return NULL;
        if (!at_kind(p, TDX_TOK_NEWLINE))
            return tdx_src_p_fail(p, "expected a newline after the decorator");
        tdx_src_p_advance(p);
    }
    if (at_kw(p, TDX_KW_CLASS))
        return classdef(p, s, mark);
    int async = at_kw(p, TDX_KW_ASYNC);
    if (async)
        tdx_src_p_advance(p);
    if (!at_kw(p, TDX_KW_DEF))
        return tdx_src_p_fail(p, "expected 'def' or 'class' after decorators");
    int strict = p->strict;
    p->strict = 1;
    tdx_src_node *n = funcdef(p, s, mark, async);
    p->strict = strict;
    if (!n)
        p->fatal = 1; /* a broken kernel header is an error, not opaque text */
    return n;
}

// A compound statement at the current token, or NULL with *is_compound 0.
tdx_src_node *tdx_src_p_compound(parser *p, int *is_compound)
{
    size_t s = p->i, mark = p->sp;
    *is_compound = 1;
    const tdx_src_token *t = cur(p);
    if (t->kind == TDX_TOK_OP && t->op == TDX_OP_AT)
        return decorated(p);
    if (t->kind != TDX_TOK_NAME) {
        *is_compound = 0;
        return NULL;
    }
    int async = 0;
    if (t->kw == TDX_KW_ASYNC) {
        tdx_src_kw next = (tdx_src_kw)peek_at(p, 1)->kw;
        if (next != TDX_KW_DEF && next != TDX_KW_FOR && next != TDX_KW_WITH) {
            *is_compound = 0;
            return NULL;
        }
        async = 1;
        tdx_src_p_advance(p);
        t = cur(p);
    }
    switch ((tdx_src_kw)t->kw) {
    case TDX_KW_DEF:
        return funcdef(p, s, mark, async);
    case TDX_KW_CLASS:
        return classdef(p, s, mark);
    case TDX_KW_IF:
        return if_stmt(p);
    case TDX_KW_WHILE: {
        tdx_src_p_advance(p);
        tdx_src_node *test = tdx_src_p_named(p);
        if (!test || tdx_src_p_push(p, test, TDX_SRC_R_TEST) < 0 ||
            tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0 || opt_clause(p, TDX_KW_ELSE, TDX_SRC_R_ORELSE) < 0)
            return NULL;
        return tdx_src_p_node(p, TDX_SRC_WHILE, s, mark);
    }
    case TDX_KW_FOR: {
        tdx_src_p_advance(p);
        tdx_src_node *target = tdx_src_p_targets(p);
        if (!target || tdx_src_p_check_target(p, target, 0) < 0 ||
            tdx_src_p_push(p, target, TDX_SRC_R_TARGET) < 0)
            return NULL;
        if (!at_kw(p, TDX_KW_IN))
            return tdx_src_p_fail(p, "expected 'in'");
        tdx_src_p_advance(p);
        tdx_src_node *iter = tdx_src_p_star_expressions(p);
        if (!iter || tdx_src_p_push(p, iter, TDX_SRC_R_ITER) < 0 ||
            tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0 || opt_clause(p, TDX_KW_ELSE, TDX_SRC_R_ORELSE) < 0)
            return NULL;
        tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_FOR, s, mark);
        if (n && async)
            n->flags |= TDX_SRC_F_ASYNC;
        return n;
    }
    case TDX_KW_WITH: {
        tdx_src_p_advance(p);
        if (with_items(p) < 0 || tdx_src_p_suite(p, TDX_SRC_R_BODY) < 0)
            return NULL;
        tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_WITH, s, mark);
        if (n && async)
            n->flags |= TDX_SRC_F_ASYNC;
        return n;
    }
    case TDX_KW_TRY:
        return try_stmt(p);
    default:
        if (async)
            return tdx_src_p_fail(p, "expected 'def', 'for' or 'with' after 'async'");
        *is_compound = 0;
        return NULL;
    }
}
