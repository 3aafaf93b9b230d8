/* Statements and the parser's entry point tdx_src_parse: simple
 * statements, blocks from INDENT/DEDENT, and the tolerant recovery that
 * turns a statement outside decorated functions into an OPAQUE node when it
 * does not parse. Compound statements are in parse_compound.c. */
#include <stdlib.h>
#include <string.h>

#include "source/parse_int.h"

/* ---- statements ------------------------------------------------------ */

static int statement(parser *p, tdx_src_role role);
static int block(parser *p, tdx_src_role role);

// Non-zero when n may be assigned to (Python's star_targets, loosely).
static int assignable(const tdx_src_node *n, int aug)
{
    switch (n->kind) {
    case TDX_SRC_NAME:
    case TDX_SRC_ATTRIBUTE:
    case TDX_SRC_SUBSCRIPT:
        return 1;
    case TDX_SRC_TUPLE:
    case TDX_SRC_LIST:
        if (aug)
            return 0;
        for (uint32_t k = 0; k < n->nkids; k++)
            if (!assignable(n->kids[k], 0))
                return 0;
        return 1;
    case TDX_SRC_STARRED:
        return !aug && assignable(n->kids[0], 0);
    default:
        return 0;
    }
}

// Fail unless n is assignable; returns 0 or -1.
int tdx_src_p_check_target(parser *p, const tdx_src_node *n, int aug)
{
    if (assignable(n, aug))
        return 0;
    tdx_src_p_fail(p, "cannot assign to this expression");
    p->err_tok = p->i ? p->i - 1 : 0;
    return -1;
}

// The binary operator behind an augmented assignment token.
static tdx_src_op aug_binop(tdx_src_op op)
{
    switch (op) {
    case TDX_OP_PLUSEQ: return TDX_OP_PLUS;
    case TDX_OP_MINUSEQ: return TDX_OP_MINUS;
    case TDX_OP_STAREQ: return TDX_OP_STAR;
    case TDX_OP_SLASHEQ: return TDX_OP_SLASH;
    case TDX_OP_DSLASHEQ: return TDX_OP_DSLASH;
    case TDX_OP_PERCENTEQ: return TDX_OP_PERCENT;
    case TDX_OP_DSTAREQ: return TDX_OP_DSTAR;
    case TDX_OP_ATEQ: return TDX_OP_MATMUL;
    case TDX_OP_LSHIFTEQ: return TDX_OP_LSHIFT;
    case TDX_OP_RSHIFTEQ: return TDX_OP_RSHIFT;
    case TDX_OP_AMPEQ: return TDX_OP_AMP;
    case TDX_OP_PIPEEQ: return TDX_OP_PIPE;
    case TDX_OP_CARETEQ: return TDX_OP_CARET;
    default: return TDX_OP_NONE;
    }
}

// The right-hand side of an assignment: yield or star expressions.
static tdx_src_node *rhs(parser *p)
{
    if (at_kw(p, TDX_KW_YIELD))
        return tdx_src_p_yield(p);
    return tdx_src_p_star_expressions(p);
}

// Expression statement, assignment, augmented or annotated assignment.
static tdx_src_node *expr_stmt(parser *p)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_node *first = rhs(p);
    if (!first)
        return NULL;
    const tdx_src_token *t = cur(p);
    if (t->kind == TDX_TOK_OP && t->op == TDX_OP_COLON) {
        if (tdx_src_p_check_target(p, first, 1) < 0 || tdx_src_p_push(p, first, TDX_SRC_R_TARGET) < 0)
            return NULL;
        tdx_src_p_advance(p);
        tdx_src_node *ann = tdx_src_p_expression(p);
        if (!ann || tdx_src_p_push(p, ann, TDX_SRC_R_ANNOTATION) < 0)
            return NULL;
        if (at_op(p, TDX_OP_EQUAL)) {
            tdx_src_p_advance(p);
            tdx_src_node *v = rhs(p);
            if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
                return NULL;
        }
        return tdx_src_p_node(p, TDX_SRC_ANNASSIGN, s, mark);
    }
    if (t->kind == TDX_TOK_OP && aug_binop((tdx_src_op)t->op) != TDX_OP_NONE) {
        tdx_src_op op = aug_binop((tdx_src_op)t->op);
        if (tdx_src_p_check_target(p, first, 1) < 0 || tdx_src_p_push(p, first, TDX_SRC_R_TARGET) < 0)
            return NULL;
        tdx_src_p_advance(p);
        tdx_src_node *v = rhs(p);
        if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
            return NULL;
        tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_AUGASSIGN, s, mark);
        if (n)
            n->op = (uint8_t)op;
        return n;
    }
    if (t->kind == TDX_TOK_OP && t->op == TDX_OP_EQUAL) {
        tdx_src_node *prev = first;
        while (at_op(p, TDX_OP_EQUAL)) {
            if (tdx_src_p_check_target(p, prev, 0) < 0 || tdx_src_p_push(p, prev, TDX_SRC_R_TARGET) < 0)
                return NULL;
            tdx_src_p_advance(p);
            prev = rhs(p);
            if (!prev)
                return NULL;
        }
        if (tdx_src_p_push(p, prev, TDX_SRC_R_VALUE) < 0)
            return NULL;
        return tdx_src_p_node(p, TDX_SRC_ASSIGN, s, mark);
    }
    if (tdx_src_p_push(p, first, TDX_SRC_R_VALUE) < 0)
        return NULL;
    return tdx_src_p_node(p, TDX_SRC_EXPR_STMT, s, mark);
}

// A dotted name `a.b.c` (after import/from); returns its text in the arena.
static char *dotted_name(parser *p)
{
    if (cur(p)->kind != TDX_TOK_NAME)
        return tdx_src_p_fail(p, "expected a module name");
    size_t first = p->i;
    size_t len = 0;
    for (;;) {
        len += cur(p)->end - cur(p)->start;
        tdx_src_p_advance(p);
        if (!at_op(p, TDX_OP_DOT) || peek_at(p, 1)->kind != TDX_TOK_NAME)
            break;
        tdx_src_p_advance(p);
        len++;
    }
    char *out = tdx_arena_alloc(p->arena, len + 1);
    if (!out)
        return tdx_src_p_fatal(p, "out of memory");
    size_t o = 0;
    for (size_t k = first; k < p->i; k++) {
        const tdx_src_token *t = &p->t[k];
        memcpy(out + o, p->src + t->start, t->end - t->start);
        o += t->end - t->start;
    }
    out[o] = '\0';
    return out;
}

// One `name [as alias]` of an import; dotted for `import`, plain for `from`.
static int import_alias(parser *p, int dotted)
{
    size_t s = p->i, mark = p->sp;
    char *name;
    if (dotted) {
        name = dotted_name(p);
    } else if (cur(p)->kind == TDX_TOK_NAME) {
        name = tdx_src_p_tokdup(p, p->i);
        tdx_src_p_advance(p);
    } else {
        name = tdx_src_p_fail(p, "expected a name to import");
    }
    if (!name)
        return -1;
    char *as = NULL;
    if (at_kw(p, TDX_KW_AS)) {
        tdx_src_p_advance(p);
        if (!at_name(p)) {
            tdx_src_p_fail(p, "expected a name after 'as'");
            return -1;
        }
        as = tdx_src_p_tokdup(p, p->i);
        tdx_src_p_advance(p);
    }
    tdx_src_node *a = tdx_src_p_node(p, TDX_SRC_ALIAS, s, mark);
    if (!a)
        return -1;
    a->name = name;
    a->name2 = as;
    return tdx_src_p_push(p, a, TDX_SRC_R_ALIAS);
}

// import a.b as c, d  |  from ..m import (x as y, z)  |  from m import *
static tdx_src_node *import_stmt(parser *p)
{
    size_t s = p->i, mark = p->sp;
    if (at_kw(p, TDX_KW_IMPORT)) {
        tdx_src_p_advance(p);
        do {
            if (p->i > s + 1)
                tdx_src_p_advance(p); /* the comma */
            if (import_alias(p, 1) < 0)
                return NULL;
        } while (at_op(p, TDX_OP_COMMA));
        return tdx_src_p_node(p, TDX_SRC_IMPORT, s, mark);
    }
    tdx_src_p_advance(p); /* from */
    size_t dots = 0, dstart = p->i;
    while (at_op(p, TDX_OP_DOT) || at_op(p, TDX_OP_ELLIPSIS)) {
        dots += at_op(p, TDX_OP_DOT) ? 1 : 3;
        tdx_src_p_advance(p);
    }
    char *mod = NULL;
    if (!at_kw(p, TDX_KW_IMPORT)) {
        mod = dotted_name(p);
        if (!mod)
            return NULL;
    } else if (dots == 0) {
        return tdx_src_p_fail(p, "expected a module name");
    }
    (void)dstart;
    size_t ml = mod ? strlen(mod) : 0;
    char *full = tdx_arena_alloc(p->arena, dots + ml + 1);
    if (!full)
        return tdx_src_p_fatal(p, "out of memory");
    memset(full, '.', dots);
    if (ml)
        memcpy(full + dots, mod, ml); // NOLINT(bugprone-not-null-terminated-result): the arena zeroes what it hands out
    if (!at_kw(p, TDX_KW_IMPORT))
        return tdx_src_p_fail(p, "expected 'import'");
    tdx_src_p_advance(p);
    int star = 0;
    if (at_op(p, TDX_OP_STAR)) {
        star = 1;
        tdx_src_p_advance(p);
    } else {
        int paren = at_op(p, TDX_OP_LPAR);
        if (paren)
            tdx_src_p_advance(p);
        for (;;) {
            if (import_alias(p, 0) < 0)
                return NULL;
            if (!at_op(p, TDX_OP_COMMA))
                break;
            tdx_src_p_advance(p);
            if (paren && at_op(p, TDX_OP_RPAR))
                break;
        }
        if (paren && tdx_src_p_expect(p, TDX_OP_RPAR, "expected ')'") < 0)
            return NULL;
    }
    tdx_src_node *n = tdx_src_p_node(p, TDX_SRC_IMPORT_FROM, s, mark);
    if (n) {
        n->name = full;
        if (star)
            n->flags |= TDX_SRC_F_STAR;
    }
    return n;
}

// A statement keyword followed by an optional expression list (return, del).
static tdx_src_node *keyword_expr_stmt(parser *p, tdx_src_kind kind, tdx_src_role role)
{
    size_t s = p->i, mark = p->sp;
    tdx_src_p_advance(p);
    const tdx_src_token *t = cur(p);
    if (!(t->kind == TDX_TOK_NEWLINE || t->kind == TDX_TOK_EOF ||
          (t->kind == TDX_TOK_OP && t->op == TDX_OP_SEMI))) {
        tdx_src_node *v = tdx_src_p_star_expressions(p);
        if (!v || tdx_src_p_push(p, v, role) < 0)
            return NULL;
    } else if (kind == TDX_SRC_DEL) {
        return tdx_src_p_fail(p, "expected a target to delete");
    }
    return tdx_src_p_node(p, kind, s, mark);
}

// One simple statement (no NEWLINE).
static tdx_src_node *simple_stmt(parser *p)
{
    size_t s = p->i, mark = p->sp;
    const tdx_src_token *t = cur(p);
    if (t->kind == TDX_TOK_NAME) {
        switch ((tdx_src_kw)t->kw) {
        case TDX_KW_PASS:
        case TDX_KW_BREAK:
        case TDX_KW_CONTINUE:
            tdx_src_p_advance(p);
            return tdx_src_p_node(p,
                                  t->kw == TDX_KW_PASS    ? TDX_SRC_PASS
                                  : t->kw == TDX_KW_BREAK ? TDX_SRC_BREAK
                                                          : TDX_SRC_CONTINUE,
                                  s, mark);
        case TDX_KW_RETURN:
            return keyword_expr_stmt(p, TDX_SRC_RETURN, TDX_SRC_R_VALUE);
        case TDX_KW_DEL:
            return keyword_expr_stmt(p, TDX_SRC_DEL, TDX_SRC_R_TARGET);
        case TDX_KW_IMPORT:
        case TDX_KW_FROM:
            return import_stmt(p);
        case TDX_KW_GLOBAL:
        case TDX_KW_NONLOCAL: {
            tdx_src_kind kind = t->kw == TDX_KW_GLOBAL ? TDX_SRC_GLOBAL : TDX_SRC_NONLOCAL;
            tdx_src_p_advance(p);
            for (;;) {
                if (!at_name(p))
                    return tdx_src_p_fail(p, "expected a name");
                size_t k = p->i, m2 = p->sp;
                tdx_src_p_advance(p);
                tdx_src_node *nm = tdx_src_p_node(p, TDX_SRC_NAME, k, m2);
                if (!nm || !(nm->name = tdx_src_p_tokdup(p, k)))
                    return tdx_src_p_fatal(p, "out of memory");
                if (tdx_src_p_push(p, nm, TDX_SRC_R_TARGET) < 0)
                    return NULL;
                if (!at_op(p, TDX_OP_COMMA))
                    break;
                tdx_src_p_advance(p);
            }
            return tdx_src_p_node(p, kind, s, mark);
        }
        case TDX_KW_ASSERT: {
            tdx_src_p_advance(p);
            tdx_src_node *test = tdx_src_p_expression(p);
            if (!test || tdx_src_p_push(p, test, TDX_SRC_R_TEST) < 0)
                return NULL;
            if (at_op(p, TDX_OP_COMMA)) {
                tdx_src_p_advance(p);
                tdx_src_node *msg = tdx_src_p_expression(p);
                if (!msg || tdx_src_p_push(p, msg, TDX_SRC_R_MSG) < 0)
                    return NULL;
            }
            return tdx_src_p_node(p, TDX_SRC_ASSERT, s, mark);
        }
        case TDX_KW_RAISE: {
            tdx_src_p_advance(p);
            const tdx_src_token *u = cur(p);
            if (!(u->kind == TDX_TOK_NEWLINE || u->kind == TDX_TOK_EOF ||
                  (u->kind == TDX_TOK_OP && u->op == TDX_OP_SEMI))) {
                tdx_src_node *v = tdx_src_p_expression(p);
                if (!v || tdx_src_p_push(p, v, TDX_SRC_R_VALUE) < 0)
                    return NULL;
                if (at_kw(p, TDX_KW_FROM)) {
                    tdx_src_p_advance(p);
                    tdx_src_node *c = tdx_src_p_expression(p);
                    if (!c || tdx_src_p_push(p, c, TDX_SRC_R_CAUSE) < 0)
                        return NULL;
                }
            }
            return tdx_src_p_node(p, TDX_SRC_RAISE, s, mark);
        }
        default:
            break;
        }
    }
    return expr_stmt(p);
}

// simple_stmt (';' simple_stmt)* [';'] NEWLINE, each pushed with role.
static int simple_stmts(parser *p, tdx_src_role role)
{
    for (;;) {
        tdx_src_node *n = simple_stmt(p);
        if (!n || tdx_src_p_push(p, n, role) < 0)
            return -1;
        if (!at_op(p, TDX_OP_SEMI))
            break;
        tdx_src_p_advance(p);
        if (at_kind(p, TDX_TOK_NEWLINE) || at_kind(p, TDX_TOK_EOF))
            break;
    }
    if (at_kind(p, TDX_TOK_EOF))
        return 0;
    if (!at_kind(p, TDX_TOK_NEWLINE)) {
        tdx_src_p_fail(p, "expected the end of the statement");
        return -1;
    }
    tdx_src_p_advance(p);
    return 0;
}

// ':' then an indented block or simple statements on the same line.
int tdx_src_p_suite(parser *p, tdx_src_role role)
{
    if (tdx_src_p_expect(p, TDX_OP_COLON, "expected ':'") < 0)
        return -1;
    return block(p, role);
}

// An indented block, or simple statements after the colon.
static int block(parser *p, tdx_src_role role)
{
    if (!at_kind(p, TDX_TOK_NEWLINE))
        return simple_stmts(p, role);
    tdx_src_p_advance(p);
    if (!at_kind(p, TDX_TOK_INDENT)) {
        tdx_src_p_fail(p, "expected an indented block");
        return -1;
    }
    if (++p->depth > TDX_SRC_MAX_DEPTH) {
        tdx_src_p_fatal(p, "too many nested blocks");
        return -1;
    }
    tdx_src_p_advance(p);
    int r = 0;
    while (!at_kind(p, TDX_TOK_DEDENT) && !at_kind(p, TDX_TOK_EOF))
        if ((r = statement(p, role)) < 0)
            break;
    if (r == 0 && at_kind(p, TDX_TOK_DEDENT))
        tdx_src_p_advance(p);
    p->depth--;
    return r;
}

// Skip the logical line starting at the current token and, when an
// indented block follows it, the block too (tolerant recovery).
static void skip_statement(parser *p)
{
    while (!at_kind(p, TDX_TOK_NEWLINE) && !at_kind(p, TDX_TOK_EOF)) {
        /* an INDENT/DEDENT cannot occur before the NEWLINE, but never
         * leave the block we are in */
        if (at_kind(p, TDX_TOK_DEDENT))
            return;
        tdx_src_p_advance(p);
    }
    tdx_src_p_advance(p);
    int level = 0;
    while (at_kind(p, TDX_TOK_INDENT) || level > 0) {
        if (at_kind(p, TDX_TOK_EOF))
            return;
        if (at_kind(p, TDX_TOK_INDENT))
            level++;
        else if (at_kind(p, TDX_TOK_DEDENT))
            level--;
        tdx_src_p_advance(p);
    }
}

// One statement (or one line of simple statements), pushed with role.
// Outside decorated functions, a statement that fails to parse becomes an
// OPAQUE node; inside them the error stands.
static int statement(parser *p, tdx_src_role role)
{
    pmark m = pmark_save(p);
    if (at_kind(p, TDX_TOK_INDENT)) {
        tdx_src_p_fatal(p, "unexpected indent");
        return -1;
    }
    if (at_kind(p, TDX_TOK_DEDENT)) { /* cannot happen: blocks consume theirs */
        tdx_src_p_fatal(p, "unexpected dedent");
        return -1;
    }
    int is_compound;
    int depth = p->depth;
    tdx_src_node *n = tdx_src_p_compound(p, &is_compound);
    int r;
    if (is_compound)
        r = n ? tdx_src_p_push(p, n, role) : -1;
    else
        r = p->err ? -1 : simple_stmts(p, role);
    if (r == 0)
        return 0;
    if (p->fatal)
        return -1;
    /* inside a decorated function only the soft-keyword statements that
     * are not modelled (match, type) may stay opaque */
    const tdx_src_token *first = &p->t[m.i];
    size_t flen = first->end - first->start;
    int soft = first->kind == TDX_TOK_NAME &&
               ((flen == 5 && memcmp(p->src + first->start, "match", 5) == 0) ||
                (flen == 4 && memcmp(p->src + first->start, "type", 4) == 0));
    if (p->strict && !soft) {
        p->fatal = 1;
        return -1;
    }
    /* tolerant: the whole logical line (and its block) becomes opaque */
    pmark_restore(p, m);
    p->depth = depth;
    size_t s = p->i;
    skip_statement(p);
    if (p->i == s) { /* recovery must always make progress */
        tdx_src_p_fatal(p, "invalid syntax");
        return -1;
    }
    tdx_src_node *o = tdx_src_p_node(p, TDX_SRC_OPAQUE, s, p->sp);
    if (!o)
        return -1;
    p->nopaque++;
    return tdx_src_p_push(p, o, role);
}

// Parse a module: tokenize, then statements until EOF, then the root spanning all the source.
tdx_status tdx_src_parse(const char *path, const char *src, size_t len, tdx_arena *arena,
                         tdx_diags *diags, tdx_src_module **out)
{
    *out = NULL;
    tdx_src_module *m = tdx_arena_alloc(arena, sizeof *m);
    if (!m)
        return TDX_ERR_NOMEM;
    tdx_status st = tdx_src_tokenize(path, src, len, arena, diags, &m->toks);
    if (st != TDX_OK)
        return st;
    m->path = path ? tdx_arena_strdup(arena, path) : NULL;
    m->src = src;
    m->len = len;
    parser p = {0};
    p.path = path;
    p.src = src;
    p.arena = arena;
    p.t = m->toks.items;
    p.n = m->toks.len;
    while (!at_kind(&p, TDX_TOK_EOF))
        if (statement(&p, TDX_SRC_R_BODY) < 0)
            break;
    if (!p.err) {
        /* the module spans all of the source, comments and blank lines too */
        tdx_src_node *root = tdx_src_p_node(&p, TDX_SRC_MODULE, 0, 0);
        if (root) {
            const tdx_src_token *eof = &p.t[p.n - 1];
            root->start = 0;
            root->line = 1;
            root->col = 1;
            root->end = (uint32_t)len;
            root->end_line = eof->end_line;
            root->end_col = eof->end_col;
            m->root = root;
        }
    }
    free(p.stk);
    if (p.err) {
        const tdx_src_token *t = &p.t[p.err_tok < p.n ? p.err_tok : p.n - 1];
        if (diags) {
            if (t->kind == TDX_TOK_EOF)
                tdx_diags_add(diags, TDX_SEV_ERROR, path, t->line, t->col,
                              "%s at the end of the input", p.err_what);
            else if (t->kind == TDX_TOK_NEWLINE)
                tdx_diags_add(diags, TDX_SEV_ERROR, path, t->line, t->col,
                              "%s at the end of the line", p.err_what);
            else if (t->kind == TDX_TOK_INDENT || t->kind == TDX_TOK_DEDENT)
                tdx_diags_add(diags, TDX_SEV_ERROR, path, t->line, t->col, "%s", p.err_what);
            else
                tdx_diags_add(diags, TDX_SEV_ERROR, path, t->line, t->col, "%s, found '%.*s'",
                              p.err_what, (int)(t->end - t->start > 20 ? 20 : t->end - t->start),
                              src + t->start);
        }
        return strcmp(p.err_what, "out of memory") == 0 ? TDX_ERR_NOMEM : TDX_ERR_PARSE;
    }
    m->nopaque = p.nopaque;
    *out = m;
    return TDX_OK;
}
