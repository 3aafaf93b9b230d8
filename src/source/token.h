/* The Python tokenizer (tdx_src_*): bytes -> tokens, as Python's own
 * tokenizer does it (Lib/tokenize.py, Parser/tokenizer.c): logical lines end
 * in NEWLINE, indentation becomes INDENT/DEDENT, newlines inside brackets and
 * after a backslash join lines, comments and blank lines vanish.
 *
 * Every token keeps its byte span [start, end) into the source and the
 * 1-based line and 1-based byte column of both ends, so that later rewrites
 * can edit the source by span and leave the rest byte-identical.
 *
 * Ownership: the token array lives in the caller's arena; the source must
 * outlive every use of the tokens (they point into it by offset only). */
#ifndef TDX_SOURCE_TOKEN_H
#define TDX_SOURCE_TOKEN_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/status.h"

typedef enum tdx_src_tok_kind {
    TDX_TOK_EOF = 0,
    TDX_TOK_NEWLINE, /* end of a logical line (empty span at end of input) */
    TDX_TOK_INDENT,  /* empty span at the first byte of the indented line */
    TDX_TOK_DEDENT,  /* empty span at the first byte of the dedented line */
    TDX_TOK_NAME,    /* identifier or keyword (see kw) */
    TDX_TOK_NUMBER,  /* 12, 0x1F, 1_000, 1e-5, 3.0j */
    TDX_TOK_STRING,  /* any string literal incl. prefixes, triple quotes, f-strings */
    TDX_TOK_OP       /* operator or delimiter (see op) */
} tdx_src_tok_kind;

/* Keywords (hard keywords of Python 3; soft ones like `match` stay names). */
typedef enum tdx_src_kw {
    TDX_KW_NONE_ = 0, /* not a keyword */
    TDX_KW_FALSE, TDX_KW_NONE, TDX_KW_TRUE, TDX_KW_AND, TDX_KW_AS, TDX_KW_ASSERT,
    TDX_KW_ASYNC, TDX_KW_AWAIT, TDX_KW_BREAK, TDX_KW_CLASS, TDX_KW_CONTINUE, TDX_KW_DEF,
    TDX_KW_DEL, TDX_KW_ELIF, TDX_KW_ELSE, TDX_KW_EXCEPT, TDX_KW_FINALLY, TDX_KW_FOR,
    TDX_KW_FROM, TDX_KW_GLOBAL, TDX_KW_IF, TDX_KW_IMPORT, TDX_KW_IN, TDX_KW_IS,
    TDX_KW_LAMBDA, TDX_KW_NONLOCAL, TDX_KW_NOT, TDX_KW_OR, TDX_KW_PASS, TDX_KW_RAISE,
    TDX_KW_RETURN, TDX_KW_TRY, TDX_KW_WHILE, TDX_KW_WITH, TDX_KW_YIELD
} tdx_src_kw;

/* Operators and delimiters. Also used as the `op` of expression nodes
 * (binary, unary, boolean, comparison and augmented-assignment operators). */
typedef enum tdx_src_op {
    TDX_OP_NONE = 0,
    TDX_OP_LPAR, TDX_OP_RPAR, TDX_OP_LSQB, TDX_OP_RSQB, TDX_OP_LBRACE, TDX_OP_RBRACE,
    TDX_OP_COLON, TDX_OP_COMMA, TDX_OP_SEMI, TDX_OP_DOT, TDX_OP_ELLIPSIS, TDX_OP_ARROW,
    TDX_OP_AT, TDX_OP_WALRUS, TDX_OP_EQUAL, /* `=` */
    /* arithmetic and bitwise */
    TDX_OP_PLUS, TDX_OP_MINUS, TDX_OP_STAR, TDX_OP_SLASH, TDX_OP_DSLASH, TDX_OP_PERCENT,
    TDX_OP_DSTAR, TDX_OP_MATMUL, /* `@` as a binary operator (the token is TDX_OP_AT) */
    TDX_OP_LSHIFT, TDX_OP_RSHIFT, TDX_OP_AMP, TDX_OP_PIPE, TDX_OP_CARET, TDX_OP_TILDE,
    /* comparisons */
    TDX_OP_LT, TDX_OP_GT, TDX_OP_LE, TDX_OP_GE, TDX_OP_EQ, TDX_OP_NE,
    TDX_OP_IN, TDX_OP_NOT_IN, TDX_OP_IS, TDX_OP_IS_NOT, /* only on nodes, never tokens */
    /* boolean and unary keywords, only on nodes */
    TDX_OP_AND, TDX_OP_OR, TDX_OP_NOT,
    /* augmented assignment tokens: `+=` ... */
    TDX_OP_PLUSEQ, TDX_OP_MINUSEQ, TDX_OP_STAREQ, TDX_OP_SLASHEQ, TDX_OP_DSLASHEQ,
    TDX_OP_PERCENTEQ, TDX_OP_DSTAREQ, TDX_OP_ATEQ, TDX_OP_LSHIFTEQ, TDX_OP_RSHIFTEQ,
    TDX_OP_AMPEQ, TDX_OP_PIPEEQ, TDX_OP_CARETEQ,
    TDX_OP_BANG, /* `!` (only inside f-string fields in real code) */
    TDX_OP_COUNT_
} tdx_src_op;

typedef struct tdx_src_token {
    uint8_t kind;      /* tdx_src_tok_kind */
    uint8_t kw;        /* tdx_src_kw for names, 0 otherwise */
    uint8_t op;        /* tdx_src_op for operators, 0 otherwise */
    uint8_t flags;     /* TDX_TOKF_* */
    uint32_t start;    /* byte offset of the first byte */
    uint32_t end;      /* byte offset one past the last byte */
    int32_t line, col; /* 1-based line and byte column of start */
    int32_t end_line, end_col; /* position of end (one past the last byte) */
} tdx_src_token;

enum {
    TDX_TOKF_FSTRING = 1, /* a string token with an f/F prefix */
    TDX_TOKF_BYTES = 2,   /* a string token with a b/B prefix */
    TDX_TOKF_RAW = 4,     /* a string token with an r/R prefix */
    TDX_TOKF_TRIPLE = 8   /* a triple-quoted string token */
};

/* The limits the tokenizer enforces (as CPython does: MAXLEVEL, MAXINDENT). */
enum { TDX_SRC_MAX_BRACKETS = 200, TDX_SRC_MAX_INDENT = 100 };

typedef struct tdx_src_tokens {
    tdx_src_token *items; /* ends with exactly one TDX_TOK_EOF */
    size_t len;           /* number of tokens including the EOF */
} tdx_src_tokens;

/* Tokenize src[0..len). path is used for diagnostics only (may be NULL).
 * On malformed input (unterminated string, unbalanced bracket, inconsistent
 * dedent, stray character, too deep nesting) adds an error
 * `path:line:col: error: msg` to diags and returns TDX_ERR_PARSE; out is then
 * left empty. Input over 2 GiB is TDX_ERR_TOOBIG. */
tdx_status tdx_src_tokenize(const char *path, const char *src, size_t len, tdx_arena *arena,
                            tdx_diags *diags, tdx_src_tokens *out);

/* Short names for dumps and messages: "NAME", "NEWLINE", ... and "+=", "(" ... */
const char *tdx_src_tok_kind_str(tdx_src_tok_kind k);
const char *tdx_src_op_str(tdx_src_op op);
const char *tdx_src_kw_str(tdx_src_kw kw);

#endif
