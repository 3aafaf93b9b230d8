/* Printing the syntax tree: names of kinds and roles, the S-expression
 * dump used by the data-driven tests, the unparser that prints the source
 * back from spans, and the invariant checker. */
#include <stdlib.h>
#include <string.h>

#include "source/ast.h"

static const char *const kind_names[TDX_SRC_KIND_COUNT_] = {
    [TDX_SRC_MODULE] = "module",       [TDX_SRC_OPAQUE] = "opaque",
    [TDX_SRC_FUNCDEF] = "funcdef",     [TDX_SRC_CLASSDEF] = "classdef",
    [TDX_SRC_DECORATOR] = "decorator", [TDX_SRC_PARAM] = "param",
    [TDX_SRC_ASSIGN] = "assign",       [TDX_SRC_AUGASSIGN] = "augassign",
    [TDX_SRC_ANNASSIGN] = "annassign", [TDX_SRC_EXPR_STMT] = "expr",
    [TDX_SRC_IF] = "if",               [TDX_SRC_FOR] = "for",
    [TDX_SRC_WHILE] = "while",         [TDX_SRC_BREAK] = "break",
    [TDX_SRC_CONTINUE] = "continue",   [TDX_SRC_PASS] = "pass",
    [TDX_SRC_RETURN] = "return",       [TDX_SRC_ASSERT] = "assert",
    [TDX_SRC_WITH] = "with",           [TDX_SRC_WITHITEM] = "withitem",
    [TDX_SRC_TRY] = "try",             [TDX_SRC_EXCEPT] = "except",
    [TDX_SRC_IMPORT] = "import",       [TDX_SRC_IMPORT_FROM] = "import_from",
    [TDX_SRC_ALIAS] = "alias",         [TDX_SRC_GLOBAL] = "global",
    [TDX_SRC_NONLOCAL] = "nonlocal",   [TDX_SRC_DEL] = "del",
    [TDX_SRC_RAISE] = "raise",         [TDX_SRC_NAME] = "name",
    [TDX_SRC_CONST] = "const",         [TDX_SRC_NUMBER] = "number",
    [TDX_SRC_STRING] = "string",       [TDX_SRC_ATTRIBUTE] = "attribute",
    [TDX_SRC_CALL] = "call",           [TDX_SRC_KEYWORD] = "keyword",
    [TDX_SRC_STARRED] = "starred",     [TDX_SRC_SUBSCRIPT] = "subscript",
    [TDX_SRC_SLICE] = "slice",         [TDX_SRC_TUPLE] = "tuple",
    [TDX_SRC_LIST] = "list",           [TDX_SRC_SET] = "set",
    [TDX_SRC_DICT] = "dict",           [TDX_SRC_LISTCOMP] = "listcomp",
    [TDX_SRC_SETCOMP] = "setcomp",     [TDX_SRC_GENEXP] = "genexp",
    [TDX_SRC_DICTCOMP] = "dictcomp",   [TDX_SRC_COMPFOR] = "compfor",
    [TDX_SRC_LAMBDA] = "lambda",       [TDX_SRC_IFEXP] = "ifexp",
    [TDX_SRC_COMPARE] = "compare",     [TDX_SRC_BOOLOP] = "boolop",
    [TDX_SRC_BINOP] = "binop",         [TDX_SRC_UNARYOP] = "unaryop",
    [TDX_SRC_NAMEDEXPR] = "namedexpr", [TDX_SRC_AWAIT] = "await",
    [TDX_SRC_YIELD] = "yield",
};

static const char *const role_names[TDX_SRC_ROLE_COUNT_] = {
    [TDX_SRC_R_NONE] = "",           [TDX_SRC_R_BODY] = "body",
    [TDX_SRC_R_ORELSE] = "orelse",   [TDX_SRC_R_FINALBODY] = "finalbody",
    [TDX_SRC_R_HANDLER] = "handler", [TDX_SRC_R_DECORATOR] = "decorator",
    [TDX_SRC_R_PARAM] = "param",     [TDX_SRC_R_RETURNS] = "returns",
    [TDX_SRC_R_BASE] = "base",       [TDX_SRC_R_KEYWORD] = "keyword",
    [TDX_SRC_R_TARGET] = "target",   [TDX_SRC_R_VALUE] = "value",
    [TDX_SRC_R_ANNOTATION] = "annotation", [TDX_SRC_R_DEFAULT] = "default",
    [TDX_SRC_R_TEST] = "test",       [TDX_SRC_R_ITER] = "iter",
    [TDX_SRC_R_MSG] = "msg",         [TDX_SRC_R_CAUSE] = "cause",
    [TDX_SRC_R_ITEM] = "item",       [TDX_SRC_R_ALIAS] = "alias",
    [TDX_SRC_R_TYPE] = "type",       [TDX_SRC_R_FUNC] = "func",
    [TDX_SRC_R_ARG] = "arg",         [TDX_SRC_R_INDEX] = "index",
    [TDX_SRC_R_LOWER] = "lower",     [TDX_SRC_R_UPPER] = "upper",
    [TDX_SRC_R_STEP] = "step",       [TDX_SRC_R_ELT] = "elt",
    [TDX_SRC_R_KEY] = "key",         [TDX_SRC_R_GENERATOR] = "generator",
    [TDX_SRC_R_IFCOND] = "ifcond",   [TDX_SRC_R_LEFT] = "left",
    [TDX_SRC_R_RIGHT] = "right",     [TDX_SRC_R_OPERAND] = "operand",
};

// The dump name of a kind.
const char *tdx_src_kind_str(tdx_src_kind k)
{
    return (unsigned)k < TDX_SRC_KIND_COUNT_ && kind_names[k] ? kind_names[k] : "?";
}

// The dump name of a role.
const char *tdx_src_role_str(tdx_src_role r)
{
    return (unsigned)r < TDX_SRC_ROLE_COUNT_ && role_names[r] ? role_names[r] : "?";
}

// Append s[0..n) quoted, escaping quotes, backslashes and control bytes,
// cut to 40 bytes so long literals keep dumps readable.
static tdx_status quoted(tdx_buf *out, const char *s, size_t n)
{
    tdx_status st = tdx_buf_addc(out, '"');
    size_t shown = n > 40 ? 40 : n;
    for (size_t k = 0; k < shown && st == TDX_OK; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c == '"' || c == '\\')
            st = tdx_buf_printf(out, "\\%c", c);
        else if (c == '\n')
            st = tdx_buf_adds(out, "\\n");
        else if (c < 0x20 || c == 0x7f)
            st = tdx_buf_printf(out, "\\x%02x", c);
        else
            st = tdx_buf_addc(out, (char)c);
    }
    if (st == TDX_OK && shown < n)
        st = tdx_buf_adds(out, "...");
    return st == TDX_OK ? tdx_buf_addc(out, '"') : st;
}

static const struct {
    int flag;
    const char *name;
} flag_names[] = {
    {TDX_SRC_F_ASYNC, "async"}, {TDX_SRC_F_ELIF, "elif"},       {TDX_SRC_F_STAR, "star"},
    {TDX_SRC_F_DSTAR, "dstar"}, {TDX_SRC_F_SLASH, "slash"},     {TDX_SRC_F_PAREN, "paren"},
    {TDX_SRC_F_FSTRING, "fstring"}, {TDX_SRC_F_BYTES, "bytes"}, {TDX_SRC_F_FROM, "from"},
};

// Dump one node and its subtree at the given indentation.
static tdx_status dump_node(const tdx_src_module *m, const tdx_src_node *n, int indent,
                            tdx_buf *out)
{
    tdx_status st = tdx_buf_printf(out, "%*s(%s", indent, "", tdx_src_kind_str(n->kind));
    if (st == TDX_OK && n->role)
        st = tdx_buf_printf(out, " %s", tdx_src_role_str(n->role));
    if (st == TDX_OK && n->name) {
        st = tdx_buf_addc(out, ' ');
        if (st == TDX_OK)
            st = quoted(out, n->name, strlen(n->name));
    }
    if (st == TDX_OK && n->name2) {
        st = tdx_buf_adds(out, " as ");
        if (st == TDX_OK)
            st = quoted(out, n->name2, strlen(n->name2));
    }
    if (st == TDX_OK && n->op)
        st = tdx_buf_printf(out, " op=%s", tdx_src_op_str(n->op));
    if (st == TDX_OK && n->ops) {
        st = tdx_buf_adds(out, " ops=[");
        for (uint32_t k = 0; k + 1 < n->nkids && st == TDX_OK; k++)
            st = tdx_buf_printf(out, "%s%s", k ? "," : "", tdx_src_op_str(n->ops[k]));
        if (st == TDX_OK)
            st = tdx_buf_addc(out, ']');
    }
    for (size_t k = 0; k < sizeof flag_names / sizeof flag_names[0] && st == TDX_OK; k++)
        if (n->flags & flag_names[k].flag)
            st = tdx_buf_printf(out, " %s", flag_names[k].name);
    if (st == TDX_OK && (n->kind == TDX_SRC_NUMBER || n->kind == TDX_SRC_STRING)) {
        size_t len;
        const char *s = tdx_src_text(m, n, &len);
        st = tdx_buf_addc(out, ' ');
        if (st == TDX_OK)
            st = quoted(out, s, len);
    }
    if (st == TDX_OK)
        st = tdx_buf_printf(out, " %d:%d-%d:%d", (int)n->line, (int)n->col, (int)n->end_line,
                            (int)n->end_col);
    for (uint32_t k = 0; k < n->nkids && st == TDX_OK; k++) {
        st = tdx_buf_addc(out, '\n');
        if (st == TDX_OK)
            st = dump_node(m, n->kids[k], indent + 2, out);
    }
    return st == TDX_OK ? tdx_buf_addc(out, ')') : st;
}

// Dump a subtree as indented S-expressions.
tdx_status tdx_src_dump(const tdx_src_module *m, const tdx_src_node *n, tdx_buf *out)
{
    if (!n)
        return TDX_ERR_ARG;
    tdx_status st = dump_node(m, n, 0, out);
    return st == TDX_OK ? tdx_buf_addc(out, '\n') : st;
}

// Print n: its own text between the children, the children recursively.
static tdx_status unparse_node(const tdx_src_module *m, const tdx_src_node *n, tdx_buf *out)
{
    if (n->start > n->end || n->end > m->len)
        return TDX_ERR_INPUT;
    size_t pos = n->start;
    for (uint32_t k = 0; k < n->nkids; k++) {
        const tdx_src_node *kid = n->kids[k];
        if (kid->start < pos || kid->end > n->end)
            return TDX_ERR_INPUT;
        tdx_status st = tdx_buf_add(out, m->src + pos, kid->start - pos);
        if (st == TDX_OK)
            st = unparse_node(m, kid, out);
        if (st != TDX_OK)
            return st;
        pos = kid->end;
    }
    return tdx_buf_add(out, m->src + pos, n->end - pos);
}

// Print the whole module back from its spans.
tdx_status tdx_src_unparse(const tdx_src_module *m, tdx_buf *out)
{
    if (!m || !m->root)
        return TDX_ERR_ARG;
    return unparse_node(m, m->root, out);
}

typedef struct verifier {
    const tdx_src_module *m;
    tdx_diags *diags;
    size_t *line_starts; /* offset of each line's first byte */
    size_t nlines;
    int broken;
} verifier;

// Line and column of offset off, from the line table.
static void locate(const verifier *v, size_t off, int *line, int *col)
{
    size_t lo = 0, hi = v->nlines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (v->line_starts[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(off - v->line_starts[lo]) + 1;
}

// Report a broken invariant at node n.
static void broken(verifier *v, const tdx_src_node *n, const char *what)
{
    v->broken++;
    if (v->diags)
        tdx_diags_add(v->diags, TDX_SEV_ERROR, v->m->path, (int)n->line, (int)n->col,
                      "%s node: %s", tdx_src_kind_str(n->kind), what);
}

// Check one node and its subtree.
static void verify_node(verifier *v, const tdx_src_node *n, const tdx_src_node *parent,
                        uint32_t index)
{
    if (n->start > n->end || n->end > v->m->len) {
        broken(v, n, "span outside the source");
        return;
    }
    if (n->parent != parent || (parent && n->index != index))
        broken(v, n, "wrong parent link");
    int l, c;
    locate(v, n->start, &l, &c);
    if (l != n->line || c != n->col)
        broken(v, n, "start line:col does not match its offset");
    locate(v, n->end, &l, &c);
    if (l != n->end_line || c != n->end_col)
        broken(v, n, "end line:col does not match its offset");
    if (n->nkids && !n->kids) {
        broken(v, n, "missing children");
        return;
    }
    size_t pos = n->start;
    unsigned height = 0;
    for (uint32_t k = 0; k < n->nkids; k++) {
        const tdx_src_node *kid = n->kids[k];
        if (!kid) {
            broken(v, n, "null child");
            continue;
        }
        if (kid->start < pos || kid->end > n->end)
            broken(v, kid, "span overlaps a sibling or leaves its parent");
        if (kid->end > pos)
            pos = kid->end;
        if (kid->height > height)
            height = kid->height;
        verify_node(v, kid, n, k);
    }
    if (n->height != height + 1)
        broken(v, n, "wrong height");
}

// Check every invariant of a tree, with a line table for line:col checks.
tdx_status tdx_src_verify(const tdx_src_module *m, tdx_diags *diags)
{
    if (!m || !m->root)
        return TDX_ERR_ARG;
    verifier v = {m, diags, NULL, 0, 0};
    size_t cap = 64;
    v.line_starts = malloc(cap * sizeof *v.line_starts);
    if (!v.line_starts)
        return TDX_ERR_NOMEM;
    v.line_starts[v.nlines++] = 0;
    for (size_t k = 0; k < m->len; k++) {
        if (m->src[k] != '\n')
            continue;
        if (v.nlines == cap) {
            size_t *p = realloc(v.line_starts, cap * 2 * sizeof *p);
            if (!p) {
                free(v.line_starts);
                return TDX_ERR_NOMEM;
            }
            v.line_starts = p;
            cap *= 2;
        }
        v.line_starts[v.nlines++] = k + 1;
    }
    if (m->root->start != 0 || m->root->end != m->len)
        broken(&v, m->root, "module does not span the source");
    verify_node(&v, m->root, NULL, 0);
    free(v.line_starts);
    return v.broken ? TDX_ERR_INPUT : TDX_OK;
}
