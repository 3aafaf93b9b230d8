/* The Python parser and syntax tree (tdx_src_*).
 *
 * Parses the Python found in real Triton files. Decorated functions (every
 * @triton.jit kernel, however decorated) are parsed strictly: a syntax error
 * there is an error (only the soft-keyword statements `match` and `type`
 * may stay opaque inside them). Everything else (module level, plain def and class
 * bodies) is parsed tolerantly: a statement that is not modelled (match,
 * PEP 695 generics, ...) or does not parse becomes one TDX_SRC_OPAQUE node
 * spanning its whole logical line, plus its indented block when it has one.
 * Tokenizer errors (unterminated strings, unbalanced brackets, bad dedents)
 * and nesting deeper than TDX_SRC_MAX_DEPTH are errors everywhere.
 *
 * The tree. Every node has a kind, a byte span [start, end) into the
 * source, and the 1-based line and 1-based byte column of both ends (end is
 * one past the last byte). Children are kept in source order, never
 * overlap, and lie inside their parent's span, so the source can be printed
 * back from the spans alone (tdx_src_unparse) and rewrites can edit by span.
 * Each child has a role saying what it is to its parent; the layout of each
 * kind is written next to it below as "role: what" lines ("?" optional,
 * "*" zero or more). As in Python's ast, the span of an expression excludes
 * redundant parentheses around it, except for tuples and generator
 * expressions, whose parentheses belong to them. Unlike Python's ast, a
 * def or class spans from its first decorator (tdx_src_def_name_pos gives
 * the name), and a PARAM spans its annotation and default. Spans match
 * CPython's ast otherwise (checked on ~17,000 files of the standard library,
 * Triton and PyTorch).
 *
 * Ownership: the module, every node, every string in them and the tokens
 * live in the arena passed to tdx_src_parse and die with it. The source is
 * not copied: it must outlive the tree (tdx_src_text points into it). */
#ifndef TDX_SOURCE_AST_H
#define TDX_SOURCE_AST_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/diag.h"
#include "base/status.h"
#include "source/token.h"

/* Nesting deeper than TDX_SRC_MAX_DEPTH (brackets, blocks, unary and
 * conditional operators) is an error, and so is a tree taller than
 * TDX_SRC_MAX_HEIGHT (long operator chains: a+b+c+... nests to the left), so
 * that every recursive walk over a tree is bounded too. */
enum { TDX_SRC_MAX_DEPTH = 200, TDX_SRC_MAX_HEIGHT = 1000 };

typedef enum tdx_src_kind {
    TDX_SRC_MODULE = 0, /* body*: statements. Spans the whole source. */
    TDX_SRC_OPAQUE,     /* a statement not modelled or not parseable; no children */

    /* statements */
    TDX_SRC_FUNCDEF,    /* name; decorator*: DECORATOR, param*: PARAM, returns?: expr,
                           body*: stmt. flags ASYNC. Spans from its first decorator */
    TDX_SRC_CLASSDEF,   /* name; decorator*, base*: expr, keyword*: KEYWORD, body*.
                           Spans from its first decorator */
    TDX_SRC_DECORATOR,  /* value: expr. Spans from `@` to the end of the expression */
    TDX_SRC_PARAM,      /* name (NULL for a bare `*` or `/`); annotation?: expr,
                           default?: expr. flags STAR (*args), DSTAR (**kw), SLASH (/).
                           Spans `name: annotation = default` */
    TDX_SRC_ASSIGN,     /* target+: expr, value: expr (a = b = c: two targets) */
    TDX_SRC_AUGASSIGN,  /* op: TDX_OP_PLUS ... (the binary operator); target, value */
    TDX_SRC_ANNASSIGN,  /* target, annotation, value? */
    TDX_SRC_EXPR_STMT,  /* value */
    TDX_SRC_IF,         /* test, body*, orelse*. An `elif` is an IF with flag ELIF
                           as the only orelse child of the IF before it */
    TDX_SRC_FOR,        /* target, iter, body*, orelse*. flags ASYNC */
    TDX_SRC_WHILE,      /* test, body*, orelse* */
    TDX_SRC_BREAK,
    TDX_SRC_CONTINUE,
    TDX_SRC_PASS,
    TDX_SRC_RETURN,     /* value? */
    TDX_SRC_ASSERT,     /* test, msg? */
    TDX_SRC_WITH,       /* item+: WITHITEM, body*. flags ASYNC */
    TDX_SRC_WITHITEM,   /* value: expr, target?: expr */
    TDX_SRC_TRY,        /* body*, handler*: EXCEPT, orelse*, finalbody* */
    TDX_SRC_EXCEPT,     /* name ("as" name) or NULL; type?: expr, body* */
    TDX_SRC_IMPORT,     /* alias+: ALIAS */
    TDX_SRC_IMPORT_FROM,/* name: the module with its leading dots ("..x", "."); alias*:
                           ALIAS (none for `*`, flags STAR) */
    TDX_SRC_ALIAS,      /* name: dotted name, name2: the `as` name or NULL */
    TDX_SRC_GLOBAL,     /* target+: NAME */
    TDX_SRC_NONLOCAL,   /* target+: NAME */
    TDX_SRC_DEL,        /* target+: expr */
    TDX_SRC_RAISE,      /* value?, cause? */

    /* expressions */
    TDX_SRC_NAME,       /* name */
    TDX_SRC_CONST,      /* name: "None", "True", "False" or "..." */
    TDX_SRC_NUMBER,     /* the literal is the node text */
    TDX_SRC_STRING,     /* one or more adjacent literals; flags FSTRING, BYTES */
    TDX_SRC_ATTRIBUTE,  /* value: expr; name: the attribute */
    TDX_SRC_CALL,       /* func: expr; arg*: expr or STARRED, keyword*: KEYWORD (in source
                           order, so args and keywords may interleave) */
    TDX_SRC_KEYWORD,    /* name (NULL for `**x`, flags DSTAR); value */
    TDX_SRC_STARRED,    /* value. op: TDX_OP_STAR (*x) or TDX_OP_DSTAR (**x in a dict) */
    TDX_SRC_SUBSCRIPT,  /* value: expr; index: expr, SLICE, or TUPLE of them */
    TDX_SRC_SLICE,      /* lower?, upper?, step?: expr. `:` alone has no children */
    TDX_SRC_TUPLE,      /* elt*: expr. flags PAREN when written with parentheses */
    TDX_SRC_LIST,       /* elt* */
    TDX_SRC_SET,        /* elt+ */
    TDX_SRC_DICT,       /* (key, value)* pairs; `**d` is a lone value: STARRED op DSTAR */
    TDX_SRC_LISTCOMP,   /* elt, generator+: COMPFOR */
    TDX_SRC_SETCOMP,    /* elt, generator+ */
    TDX_SRC_GENEXP,     /* elt, generator+ */
    TDX_SRC_DICTCOMP,   /* key, value, generator+ */
    TDX_SRC_COMPFOR,    /* target, iter, ifcond*: expr. flags ASYNC. Spans from `for` */
    TDX_SRC_LAMBDA,     /* param*: PARAM, body: expr */
    TDX_SRC_IFEXP,      /* body, test, orelse (source order: body if test else orelse) */
    TDX_SRC_COMPARE,    /* operand+ (n >= 2); ops[n-1]: TDX_OP_LT ... TDX_OP_IS_NOT */
    TDX_SRC_BOOLOP,     /* op: TDX_OP_AND / TDX_OP_OR; operand+ (flattened: a and b and c) */
    TDX_SRC_BINOP,      /* op: TDX_OP_PLUS ... TDX_OP_MATMUL; left, right */
    TDX_SRC_UNARYOP,    /* op: TDX_OP_MINUS, TDX_OP_PLUS, TDX_OP_TILDE, TDX_OP_NOT; operand */
    TDX_SRC_NAMEDEXPR,  /* target, value (x := v) */
    TDX_SRC_AWAIT,      /* value */
    TDX_SRC_YIELD,      /* value?. flags FROM for `yield from` */
    TDX_SRC_KIND_COUNT_
} tdx_src_kind;

/* What a child is to its parent. */
typedef enum tdx_src_role {
    TDX_SRC_R_NONE = 0,
    TDX_SRC_R_BODY, TDX_SRC_R_ORELSE, TDX_SRC_R_FINALBODY, TDX_SRC_R_HANDLER,
    TDX_SRC_R_DECORATOR, TDX_SRC_R_PARAM, TDX_SRC_R_RETURNS, TDX_SRC_R_BASE,
    TDX_SRC_R_KEYWORD, TDX_SRC_R_TARGET, TDX_SRC_R_VALUE, TDX_SRC_R_ANNOTATION,
    TDX_SRC_R_DEFAULT, TDX_SRC_R_TEST, TDX_SRC_R_ITER, TDX_SRC_R_MSG, TDX_SRC_R_CAUSE,
    TDX_SRC_R_ITEM, TDX_SRC_R_ALIAS, TDX_SRC_R_TYPE, TDX_SRC_R_FUNC, TDX_SRC_R_ARG,
    TDX_SRC_R_INDEX, TDX_SRC_R_LOWER, TDX_SRC_R_UPPER, TDX_SRC_R_STEP, TDX_SRC_R_ELT,
    TDX_SRC_R_KEY, TDX_SRC_R_GENERATOR, TDX_SRC_R_IFCOND, TDX_SRC_R_LEFT, TDX_SRC_R_RIGHT,
    TDX_SRC_R_OPERAND,
    TDX_SRC_ROLE_COUNT_
} tdx_src_role;

enum {
    TDX_SRC_F_ASYNC = 1 << 0,
    TDX_SRC_F_ELIF = 1 << 1,
    TDX_SRC_F_STAR = 1 << 2,
    TDX_SRC_F_DSTAR = 1 << 3,
    TDX_SRC_F_SLASH = 1 << 4,
    TDX_SRC_F_PAREN = 1 << 5,
    TDX_SRC_F_FSTRING = 1 << 6,
    TDX_SRC_F_BYTES = 1 << 7,
    TDX_SRC_F_FROM = 1 << 8
};

typedef struct tdx_src_node tdx_src_node;
struct tdx_src_node {
    uint8_t kind;              /* tdx_src_kind */
    uint8_t role;              /* tdx_src_role: what this node is to its parent */
    uint8_t op;                /* tdx_src_op, for the kinds that say so */
    uint16_t flags;            /* TDX_SRC_F_* */
    uint16_t height;           /* height of the subtree: 1 for a leaf */
    uint32_t start, end;       /* byte span [start, end) */
    int32_t line, col;         /* 1-based, of start */
    int32_t end_line, end_col; /* 1-based, of end (one past the last byte) */
    const char *name;          /* identifier (see the kind), NUL-terminated, or NULL */
    const char *name2;         /* ALIAS: the `as` name; NULL otherwise */
    tdx_src_node *parent;      /* NULL for the module */
    uint32_t index;            /* position in parent->kids */
    uint32_t nkids;
    tdx_src_node **kids;       /* in source order, never NULL entries */
    uint8_t *ops;              /* COMPARE: nkids-1 tdx_src_op values; NULL otherwise */
};

typedef struct tdx_src_module {
    const char *path;     /* as given (copied), may be NULL */
    const char *src;      /* the caller's source, not copied */
    size_t len;
    tdx_src_node *root;   /* kind TDX_SRC_MODULE, span [0, len) */
    tdx_src_tokens toks;  /* every token of the source, ending with EOF */
    size_t nopaque;       /* how many OPAQUE statements the tolerant parse produced */
} tdx_src_module;

/* Parse src[0..len) (it need not be NUL-terminated). path is used in
 * diagnostics and copied. On success *out is the module. On malformed input
 * adds `path:line:col: error: msg` to diags and returns TDX_ERR_PARSE; *out
 * is then NULL. Never crashes, never loops, recursion is bounded. */
tdx_status tdx_src_parse(const char *path, const char *src, size_t len, tdx_arena *arena,
                         tdx_diags *diags, tdx_src_module **out);

/* Names for dumps: "funcdef", "call", ... and "body", "func", ... */
const char *tdx_src_kind_str(tdx_src_kind k);
const char *tdx_src_role_str(tdx_src_role r);

/* ---- walking the tree ------------------------------------------------ */

/* The first child of n with the given role, or NULL. */
tdx_src_node *tdx_src_kid(const tdx_src_node *n, tdx_src_role role);
/* The next child of n with the role after prev (prev NULL: the first), or
 * NULL. Loop: for (k = tdx_src_next(n, R, NULL); k; k = tdx_src_next(n, R, k)) */
tdx_src_node *tdx_src_next(const tdx_src_node *n, tdx_src_role role, const tdx_src_node *prev);
/* How many children of n have the role. */
size_t tdx_src_count(const tdx_src_node *n, tdx_src_role role);

/* Visitor for tdx_src_walk: return 0 to go on into the children, 1 to skip
 * this node's children, -1 to stop the whole walk. */
typedef int (*tdx_src_visit_fn)(tdx_src_node *n, void *ud);
/* Pre-order walk of n and everything below it. Returns -1 when stopped. */
int tdx_src_walk(tdx_src_node *n, tdx_src_visit_fn fn, void *ud);

/* ---- reading nodes --------------------------------------------------- */

/* The source text of n (not NUL-terminated; *len gets its length). */
const char *tdx_src_text(const tdx_src_module *m, const tdx_src_node *n, size_t *len);
/* The same, copied into arena with a NUL; NULL when out of memory. */
char *tdx_src_text_dup(const tdx_src_module *m, const tdx_src_node *n, tdx_arena *arena);
/* Non-zero when a and b are written with the same bytes. */
int tdx_src_same_text(const tdx_src_module *m, const tdx_src_node *a, const tdx_src_node *b);

/* Non-zero when a and b lie in different branches of one IF or IFEXP (one
 * under its body, the other under its orelse, an elif's included): at most
 * one of them runs. */
int tdx_src_exclusive(const tdx_src_node *a, const tdx_src_node *b);

/* "tl.load" for a NAME/ATTRIBUTE chain tl.load; NULL for anything else
 * (calls, subscripts in the chain) or when out of memory. */
char *tdx_src_dotted(const tdx_src_node *n, tdx_arena *arena);
/* Non-zero when n is exactly the NAME/ATTRIBUTE chain `dotted` (no allocation). */
int tdx_src_is_dotted(const tdx_src_node *n, const char *dotted);

/* Non-zero when n is a NAME node called name (name NULL: any NAME). */
int tdx_src_is_name(const tdx_src_node *n, const char *name);
/* Non-zero when NAME node n is bound where it stands: an assignment or loop
 * target, or an element of a target tuple. */
int tdx_src_is_bound_name(const tdx_src_node *n);
/* How many NAME nodes called name lie under n (n included). */
int tdx_src_count_name(const tdx_src_node *n, const char *name);
/* How many times name is bound under n (tdx_src_is_bound_name). */
int tdx_src_count_bindings(const tdx_src_node *n, const char *name);

/* The callee of a CALL (its func child), or NULL when n is not a call. */
tdx_src_node *tdx_src_call_func(const tdx_src_node *call);
/* The i-th positional argument of a CALL (0-based; STARRED ones count), or NULL. */
tdx_src_node *tdx_src_call_arg(const tdx_src_node *call, size_t i);
/* How many positional arguments a CALL has. */
size_t tdx_src_call_nargs(const tdx_src_node *call);
/* The value of keyword argument `name` of a CALL, or NULL. Iterate every
 * keyword with tdx_src_next(call, TDX_SRC_R_KEYWORD, prev). */
tdx_src_node *tdx_src_call_kwarg(const tdx_src_node *call, const char *name);
/* A kernel launch `kernel[grid](...)`: non-zero when call is a CALL whose
 * func is a SUBSCRIPT; then *kernel gets the subscripted expression and *grid
 * the index (either may be passed NULL). */
int tdx_src_is_launch(const tdx_src_node *call, tdx_src_node **kernel, tdx_src_node **grid);

/* The DECORATOR of a FUNCDEF/CLASSDEF whose expression is `dotted` or a call
 * of it (`triton.autotune(...)`), or NULL. */
tdx_src_node *tdx_src_decorator(const tdx_src_node *def, const char *dotted);
/* Non-zero when def is a FUNCDEF decorated as a Triton kernel: @triton.jit,
 * @jit, @triton.jit(...), @jit(...), @triton.runtime.jit.jit (a chain
 * ending in `jit` rooted at `triton` or `tl`, or a bare `jit`), under any
 * other decorators such as @triton.autotune. Not @numba.jit, @torch.jit. */
int tdx_src_is_jit(const tdx_src_node *def);
/* Push every Triton kernel FUNCDEF of the module (at any depth, in source
 * order) onto out, allocated in arena. Returns how many were pushed, or -1
 * when out of memory. */
int tdx_src_find_jit(const tdx_src_module *m, tdx_arena *arena, tdx_ptrvec *out);
/* The first FUNCDEF named name at module level (then at any depth), or NULL. */
tdx_src_node *tdx_src_find_def(const tdx_src_module *m, const char *name);
/* Non-zero when module m binds `name` at its top level: a def or class of
 * that name, an assignment to it, an import that names it, or a star
 * import (which may). Statements under a top-level if, try, with, for or
 * while count; the bodies of functions and classes do not. */
int tdx_src_binds(const tdx_src_module *m, const char *name);
/* The PARAM of a FUNCDEF/LAMBDA named name, or NULL. */
tdx_src_node *tdx_src_param(const tdx_src_node *def, const char *name);
/* Non-zero when a PARAM is annotated tl.constexpr / triton.language.constexpr
 * / constexpr. */
int tdx_src_param_is_constexpr(const tdx_src_node *param);

/* The value of an integer NUMBER (decimal, hex, octal, binary, `_`), or of a
 * unary minus/plus on one. TDX_ERR_INPUT when n is not such a literal or
 * it overflows. */
tdx_status tdx_src_int_value(const tdx_src_module *m, const tdx_src_node *n, long long *v);
/* The value of an int or float NUMBER (or signed one) as a double. */
tdx_status tdx_src_number_value(const tdx_src_module *m, const tdx_src_node *n, double *v);
/* The decoded value of a STRING that is neither an f-string nor bytes
 * (adjacent literals concatenated, common escapes decoded), in arena; NULL
 * for other nodes or when out of memory. */
char *tdx_src_string_value(const tdx_src_module *m, const tdx_src_node *n, tdx_arena *arena);

/* 1-based line and byte column of a byte offset of the module's source
 * (offset == len is allowed: the position after the last byte). */
void tdx_src_position(const tdx_src_module *m, size_t offset, int *line, int *col);

/* 1-based line and byte column of the name of a FUNCDEF or CLASSDEF (the
 * word after `def`/`class`; the node itself spans from its first decorator).
 * 0, 0 when def is not one. */
void tdx_src_def_name_pos(const tdx_src_module *m, const tdx_src_node *def, int *line, int *col);
/* The byte offset of 1-based line:col, or (size_t)-1 when it lies outside
 * the source. */
size_t tdx_src_offset(const tdx_src_module *m, int line, int col);
/* The innermost node whose span contains the byte offset (start <= offset <
 * end), or the module when none does; NULL when offset is outside the
 * source. Maps a compiler location (`loc("k.py":12:9)`) back to the tree. */
tdx_src_node *tdx_src_node_at(const tdx_src_module *m, size_t offset);

/* ---- printing -------------------------------------------------------- */

/* An indented S-expression dump of n, one node per line:
 *   (call func? 3:5-3:28
 *     (attribute func "load" 3:5-3:12 ...))
 * kind, role in the parent, name, op, flags, then start-end line:col. */
tdx_status tdx_src_dump(const tdx_src_module *m, const tdx_src_node *n, tdx_buf *out);

/* Print the source back from the tree: each node's text between its
 * children is copied verbatim and the children printed recursively, so a
 * faithful tree gives back the source byte for byte. TDX_ERR_INPUT when the
 * spans are out of order or outside their parent. */
tdx_status tdx_src_unparse(const tdx_src_module *m, tdx_buf *out);

/* Check the tree's invariants: spans inside the source and their parent,
 * children in order and not overlapping, parent/index links, and every
 * line/col matching its byte offset. Adds an error per broken node to diags
 * (when not NULL) and returns TDX_ERR_INPUT when any is broken. */
tdx_status tdx_src_verify(const tdx_src_module *m, tdx_diags *diags);

#endif
