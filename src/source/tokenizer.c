/* The Python tokenizer: bytes to tokens with spans, INDENT/DEDENT and
 * implicit line joining, following the rules of CPython's
 * Parser/tokenizer.c (Python 3.12 f-strings included: quotes may nest
 * inside replacement fields). */
#include "source/token.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
    const char *path;
    const char *s;
    size_t len, pos;
    int32_t line;      /* current line, 1-based */
    size_t line_start; /* offset of the current line's first byte */
    tdx_diags *diags;
    tdx_src_token *toks;
    size_t ntoks, cap;
    char brackets[TDX_SRC_MAX_BRACKETS]; /* open bracket chars */
    size_t bracket_pos[TDX_SRC_MAX_BRACKETS];
    int32_t bracket_line[TDX_SRC_MAX_BRACKETS], bracket_col[TDX_SRC_MAX_BRACKETS];
    int depth;
    int indents[TDX_SRC_MAX_INDENT + 1];
    int nindents;
    int failed;
} lexer;

// Record the first error at line:col; later ones are consequences.
static void lex_error(lexer *lx, int32_t line, int32_t col, const char *msg)
{
    if (lx->failed)
        return;
    lx->failed = 1;
    if (lx->diags)
        tdx_diags_add(lx->diags, TDX_SEV_ERROR, lx->path, line, col, "%s", msg);
}

// Column (1-based, bytes) of offset p on the current line.
static int32_t col_of(const lexer *lx, size_t p) { return (int32_t)(p - lx->line_start) + 1; }

// Append one token; returns it, or NULL when out of memory.
static tdx_src_token *push(lexer *lx, int kind, size_t start, int32_t line, int32_t col)
{
    if (lx->ntoks == lx->cap) {
        size_t cap = lx->cap ? lx->cap * 2 : 256;
        tdx_src_token *t = realloc(lx->toks, cap * sizeof *t);
        if (!t) {
            lex_error(lx, line, col, "out of memory");
            return NULL;
        }
        lx->toks = t;
        lx->cap = cap;
    }
    tdx_src_token *t = &lx->toks[lx->ntoks++];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)kind;
    t->start = (uint32_t)start;
    t->end = (uint32_t)lx->pos;
    t->line = line;
    t->col = col;
    t->end_line = lx->line;
    t->end_col = col_of(lx, lx->pos);
    return t;
}

// Step over a newline at pos ("\n" or "\r\n"), counting the line.
static void newline(lexer *lx)
{
    if (lx->s[lx->pos] == '\r')
        lx->pos++;
    lx->pos++;
    lx->line++;
    lx->line_start = lx->pos;
}

// Whether a byte may start an identifier (non-ASCII UTF-8 bytes may).
static int is_name_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

// Whether a byte may continue an identifier.
static int is_name_char(unsigned char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// Whether a newline ("\n" or "\r\n") starts at p.
static int is_nl(const lexer *lx, size_t p)
{
    return p < lx->len &&
           (lx->s[p] == '\n' || (lx->s[p] == '\r' && p + 1 < lx->len && lx->s[p + 1] == '\n'));
}

#define KW(w, k) {(w), sizeof(w) - 1, (k)}
static const struct {
    const char *word;
    size_t len;
    tdx_src_kw kw;
} keywords[] = {
    KW("False", TDX_KW_FALSE),   KW("None", TDX_KW_NONE),       KW("True", TDX_KW_TRUE),
    KW("and", TDX_KW_AND),       KW("as", TDX_KW_AS),           KW("assert", TDX_KW_ASSERT),
    KW("async", TDX_KW_ASYNC),   KW("await", TDX_KW_AWAIT),     KW("break", TDX_KW_BREAK),
    KW("class", TDX_KW_CLASS),   KW("continue", TDX_KW_CONTINUE), KW("def", TDX_KW_DEF),
    KW("del", TDX_KW_DEL),       KW("elif", TDX_KW_ELIF),       KW("else", TDX_KW_ELSE),
    KW("except", TDX_KW_EXCEPT), KW("finally", TDX_KW_FINALLY), KW("for", TDX_KW_FOR),
    KW("from", TDX_KW_FROM),     KW("global", TDX_KW_GLOBAL),   KW("if", TDX_KW_IF),
    KW("import", TDX_KW_IMPORT), KW("in", TDX_KW_IN),           KW("is", TDX_KW_IS),
    KW("lambda", TDX_KW_LAMBDA), KW("nonlocal", TDX_KW_NONLOCAL), KW("not", TDX_KW_NOT),
    KW("or", TDX_KW_OR),         KW("pass", TDX_KW_PASS),       KW("raise", TDX_KW_RAISE),
    KW("return", TDX_KW_RETURN), KW("try", TDX_KW_TRY),         KW("while", TDX_KW_WHILE),
    KW("with", TDX_KW_WITH),     KW("yield", TDX_KW_YIELD),
};

#undef KW

// The keyword spelled s[0..n), or TDX_KW_NONE_. Keywords are all ASCII
// letters starting with a-z, F, N or T; most names fail the first test.
static tdx_src_kw keyword_of(const char *s, size_t n)
{
    if (n < 2 || n > 8)
        return TDX_KW_NONE_;
    unsigned char c = (unsigned char)s[0];
    if (!((c >= 'a' && c <= 'y') || c == 'F' || c == 'N' || c == 'T'))
        return TDX_KW_NONE_;
    /* identifiers are most tokens: look only at the keywords of the same
     * first letter and length (a bitmask of the lengths per letter first) */
    static unsigned short lens[128];
    static int ready;
    if (!ready) {
        for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
            lens[(unsigned char)keywords[i].word[0]] |= (unsigned short)(1u << keywords[i].len);
        ready = 1;
    }
    if (!(lens[c] & (1u << n)))
        return TDX_KW_NONE_;
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (keywords[i].word[0] == (char)c && keywords[i].len == n &&
            memcmp(keywords[i].word, s, n) == 0)
            return keywords[i].kw;
    return TDX_KW_NONE_;
}

// The spelling of a keyword.
const char *tdx_src_kw_str(tdx_src_kw kw)
{
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (keywords[i].kw == kw)
            return keywords[i].word;
    return "";
}

static const char *const op_names[TDX_OP_COUNT_] = {
    [TDX_OP_NONE] = "",        [TDX_OP_LPAR] = "(",        [TDX_OP_RPAR] = ")",
    [TDX_OP_LSQB] = "[",       [TDX_OP_RSQB] = "]",        [TDX_OP_LBRACE] = "{",
    [TDX_OP_RBRACE] = "}",     [TDX_OP_COLON] = ":",       [TDX_OP_COMMA] = ",",
    [TDX_OP_SEMI] = ";",       [TDX_OP_DOT] = ".",         [TDX_OP_ELLIPSIS] = "...",
    [TDX_OP_ARROW] = "->",     [TDX_OP_AT] = "@",          [TDX_OP_WALRUS] = ":=",
    [TDX_OP_EQUAL] = "=",      [TDX_OP_PLUS] = "+",        [TDX_OP_MINUS] = "-",
    [TDX_OP_STAR] = "*",       [TDX_OP_SLASH] = "/",       [TDX_OP_DSLASH] = "//",
    [TDX_OP_PERCENT] = "%",    [TDX_OP_DSTAR] = "**",      [TDX_OP_MATMUL] = "@",
    [TDX_OP_LSHIFT] = "<<",    [TDX_OP_RSHIFT] = ">>",     [TDX_OP_AMP] = "&",
    [TDX_OP_PIPE] = "|",       [TDX_OP_CARET] = "^",       [TDX_OP_TILDE] = "~",
    [TDX_OP_LT] = "<",         [TDX_OP_GT] = ">",          [TDX_OP_LE] = "<=",
    [TDX_OP_GE] = ">=",        [TDX_OP_EQ] = "==",         [TDX_OP_NE] = "!=",
    [TDX_OP_IN] = "in",        [TDX_OP_NOT_IN] = "not in", [TDX_OP_IS] = "is",
    [TDX_OP_IS_NOT] = "is not", [TDX_OP_AND] = "and",      [TDX_OP_OR] = "or",
    [TDX_OP_NOT] = "not",      [TDX_OP_PLUSEQ] = "+=",     [TDX_OP_MINUSEQ] = "-=",
    [TDX_OP_STAREQ] = "*=",    [TDX_OP_SLASHEQ] = "/=",    [TDX_OP_DSLASHEQ] = "//=",
    [TDX_OP_PERCENTEQ] = "%=", [TDX_OP_DSTAREQ] = "**=",   [TDX_OP_ATEQ] = "@=",
    [TDX_OP_LSHIFTEQ] = "<<=", [TDX_OP_RSHIFTEQ] = ">>=",  [TDX_OP_AMPEQ] = "&=",
    [TDX_OP_PIPEEQ] = "|=",    [TDX_OP_CARETEQ] = "^=",    [TDX_OP_BANG] = "!",
};

// The spelling of an operator.
const char *tdx_src_op_str(tdx_src_op op)
{
    return (unsigned)op < TDX_OP_COUNT_ && op_names[op] ? op_names[op] : "?";
}

// The dump name of a token kind.
const char *tdx_src_tok_kind_str(tdx_src_tok_kind k)
{
    switch (k) {
    case TDX_TOK_EOF: return "EOF";
    case TDX_TOK_NEWLINE: return "NEWLINE";
    case TDX_TOK_INDENT: return "INDENT";
    case TDX_TOK_DEDENT: return "DEDENT";
    case TDX_TOK_NAME: return "NAME";
    case TDX_TOK_NUMBER: return "NUMBER";
    case TDX_TOK_STRING: return "STRING";
    case TDX_TOK_OP: return "OP";
    }
    return "?";
}

// The operator at s (longest match, avail bytes left) and its length;
// TDX_OP_NONE if none. A switch on the first byte: this runs for every
// operator token.
static tdx_src_op match_op(const char *s, size_t avail, size_t *n)
{
    char c1 = avail > 1 ? s[1] : 0, c2 = avail > 2 ? s[2] : 0;
    *n = 1;
#define TWO(ch, op2)                                                                           \
    if (c1 == (ch)) {                                                                          \
        *n = 2;                                                                                \
        return op2;                                                                            \
    }
    switch (s[0]) {
    case '(': return TDX_OP_LPAR;
    case ')': return TDX_OP_RPAR;
    case '[': return TDX_OP_LSQB;
    case ']': return TDX_OP_RSQB;
    case '{': return TDX_OP_LBRACE;
    case '}': return TDX_OP_RBRACE;
    case ',': return TDX_OP_COMMA;
    case ';': return TDX_OP_SEMI;
    case '~': return TDX_OP_TILDE;
    case ':': TWO('=', TDX_OP_WALRUS) return TDX_OP_COLON;
    case '.':
        if (c1 == '.' && c2 == '.') {
            *n = 3;
            return TDX_OP_ELLIPSIS;
        }
        return TDX_OP_DOT;
    case '-': TWO('>', TDX_OP_ARROW) TWO('=', TDX_OP_MINUSEQ) return TDX_OP_MINUS;
    case '+': TWO('=', TDX_OP_PLUSEQ) return TDX_OP_PLUS;
    case '@': TWO('=', TDX_OP_ATEQ) return TDX_OP_AT;
    case '%': TWO('=', TDX_OP_PERCENTEQ) return TDX_OP_PERCENT;
    case '&': TWO('=', TDX_OP_AMPEQ) return TDX_OP_AMP;
    case '|': TWO('=', TDX_OP_PIPEEQ) return TDX_OP_PIPE;
    case '^': TWO('=', TDX_OP_CARETEQ) return TDX_OP_CARET;
    case '=': TWO('=', TDX_OP_EQ) return TDX_OP_EQUAL;
    case '!': TWO('=', TDX_OP_NE) return TDX_OP_BANG;
    case '*':
        if (c1 == '*') {
            *n = c2 == '=' ? 3 : 2;
            return c2 == '=' ? TDX_OP_DSTAREQ : TDX_OP_DSTAR;
        }
        TWO('=', TDX_OP_STAREQ) return TDX_OP_STAR;
    case '/':
        if (c1 == '/') {
            *n = c2 == '=' ? 3 : 2;
            return c2 == '=' ? TDX_OP_DSLASHEQ : TDX_OP_DSLASH;
        }
        TWO('=', TDX_OP_SLASHEQ) return TDX_OP_SLASH;
    case '<':
        if (c1 == '<') {
            *n = c2 == '=' ? 3 : 2;
            return c2 == '=' ? TDX_OP_LSHIFTEQ : TDX_OP_LSHIFT;
        }
        TWO('=', TDX_OP_LE) return TDX_OP_LT;
    case '>':
        if (c1 == '>') {
            *n = c2 == '=' ? 3 : 2;
            return c2 == '=' ? TDX_OP_RSHIFTEQ : TDX_OP_RSHIFT;
        }
        TWO('=', TDX_OP_GE) return TDX_OP_GT;
    default:
        *n = 0;
        return TDX_OP_NONE;
    }
#undef TWO
}

// Length of a string prefix (r, b, u, f, br, rb, fr, rf in any case) at
// pos that is directly followed by a quote; 0 when there is none.
static size_t string_prefix(const lexer *lx, size_t p, int *flags)
{
    size_t n = 0;
    int f = 0;
    while (n < 3 && p + n < lx->len) {
        char c = lx->s[p + n];
        if (c == 'r' || c == 'R')
            f |= TDX_TOKF_RAW;
        else if (c == 'b' || c == 'B')
            f |= TDX_TOKF_BYTES;
        else if (c == 'f' || c == 'F')
            f |= TDX_TOKF_FSTRING;
        else if (c == 'u' || c == 'U')
            ;
        else
            break;
        n++;
    }
    if (n == 0 || n > 2 || p + n >= lx->len || (lx->s[p + n] != '"' && lx->s[p + n] != '\''))
        return 0;
    *flags = f;
    return n;
}

static int scan_string(lexer *lx, int flags, int nest);

// Inside an f-string replacement field `{...}` (pos just after `{`): skip
// the expression, nested strings and the format spec up to the closing `}`.
static int scan_fstring_field(lexer *lx, int nest)
{
    int depth = 0, spec = 0;
    while (lx->pos < lx->len) {
        char c = lx->s[lx->pos];
        if (c == '\n' || c == '\r') {
            if (is_nl(lx, lx->pos))
                newline(lx);
            else
                lx->pos++;
            continue;
        }
        if (spec) {
            if (c == '{') {
                lx->pos++;
                if (nest + 1 > TDX_SRC_MAX_BRACKETS)
                    return -1;
                if (scan_fstring_field(lx, nest + 1) < 0)
                    return -1;
                continue;
            }
            lx->pos++;
            if (c == '}')
                return 0;
            continue;
        }
        if (c == '"' || c == '\'') {
            int f = 0;
            size_t b = lx->pos;
            while (b > 0 && is_name_char((unsigned char)lx->s[b - 1]))
                b--;
            if (b < lx->pos && string_prefix(lx, b, &f) != lx->pos - b)
                f = 0;
            if (nest + 1 > TDX_SRC_MAX_BRACKETS)
                return -1;
            if (scan_string(lx, f, nest + 1) < 0)
                return -1;
            continue;
        }
        lx->pos++;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if ((c == ')' || c == ']') && depth > 0)
            depth--;
        else if (c == '}') {
            if (depth == 0)
                return 0;
            depth--;
        } else if (c == ':' && depth == 0)
            spec = 1;
        else if (c == '#' )
            return -1; /* comments are not allowed in a single field */
    }
    return -1;
}

// Scan a string literal whose opening quote is at pos; pos ends after the
// closing quote. Returns -1 when unterminated.
static int scan_string(lexer *lx, int flags, int nest)
{
    char q = lx->s[lx->pos];
    int triple = lx->pos + 2 < lx->len && lx->s[lx->pos + 1] == q && lx->s[lx->pos + 2] == q;
    lx->pos += triple ? 3 : 1;
    while (lx->pos < lx->len) {
        char c = lx->s[lx->pos];
        if (c == '\\') {
            lx->pos++;
            if ((flags & TDX_TOKF_FSTRING) && lx->pos < lx->len) {
                char e = lx->s[lx->pos];
                /* a backslash does not escape a brace in an f-string; \N{...}
                 * (not raw) is one escape, braces included */
                if (e == '{' || e == '}')
                    continue;
                if (e == 'N' && !(flags & TDX_TOKF_RAW) && lx->pos + 1 < lx->len &&
                    lx->s[lx->pos + 1] == '{') {
                    while (lx->pos < lx->len && lx->s[lx->pos] != '}' && lx->s[lx->pos] != q &&
                           lx->s[lx->pos] != '\n')
                        lx->pos++;
                    if (lx->pos < lx->len && lx->s[lx->pos] == '}')
                        lx->pos++;
                    continue;
                }
            }
            if (lx->pos < lx->len) {
                if (is_nl(lx, lx->pos))
                    newline(lx);
                else
                    lx->pos++;
            }
            continue;
        }
        if (c == q) {
            if (!triple) {
                lx->pos++;
                return flags;
            }
            if (lx->pos + 2 < lx->len && lx->s[lx->pos + 1] == q && lx->s[lx->pos + 2] == q) {
                lx->pos += 3;
                return flags | TDX_TOKF_TRIPLE;
            }
            lx->pos++;
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (!triple && is_nl(lx, lx->pos))
                return -1;
            if (is_nl(lx, lx->pos))
                newline(lx);
            else
                lx->pos++;
            continue;
        }
        if ((flags & TDX_TOKF_FSTRING) && c == '{') {
            if (lx->pos + 1 < lx->len && lx->s[lx->pos + 1] == '{') {
                lx->pos += 2;
                continue;
            }
            lx->pos++;
            if (scan_fstring_field(lx, nest) < 0)
                return -1;
            continue;
        }
        lx->pos++;
    }
    return -1;
}

// Skip decimal digits and `_` separators from p.
static size_t skip_digits(const char *s, size_t p, size_t n)
{
    while (p < n && ((s[p] >= '0' && s[p] <= '9') || s[p] == '_'))
        p++;
    return p;
}

// Scan a number literal at pos. Returns 0, or -1 when malformed.
static int scan_number(lexer *lx)
{
    const char *s = lx->s;
    size_t p = lx->pos, n = lx->len;
    if (s[p] == '0' && p + 1 < n && s[p + 1] != 0 && strchr("xXoObB", s[p + 1])) {
        char k = (char)(s[p + 1] | 0x20);
        p += 2;
        size_t d = p;
        while (p < n && (s[p] == '_' || (k == 'x' && ((s[p] >= '0' && s[p] <= '9') ||
                                                      ((s[p] | 0x20) >= 'a' && (s[p] | 0x20) <= 'f'))) ||
                         (k == 'o' && s[p] >= '0' && s[p] <= '7') ||
                         (k == 'b' && (s[p] == '0' || s[p] == '1'))))
            p++;
        if (p == d)
            return -1;
    } else {
        p = skip_digits(s, p, n);
        if (p < n && s[p] == '.')
            p = skip_digits(s, p + 1, n);
        if (p < n && (s[p] == 'e' || s[p] == 'E')) {
            size_t q = p + 1;
            if (q < n && (s[q] == '+' || s[q] == '-'))
                q++;
            if (q < n && s[q] >= '0' && s[q] <= '9') {
                p = skip_digits(s, q, n);
            } else {
                return -1;
            }
        }
        if (p < n && (s[p] == 'j' || s[p] == 'J'))
            p++;
    }
    lx->pos = p;
    /* `1if x else y` is legal Python but letters glued to a number otherwise
     * are not; keywords are the only letters accepted right after. */
    if (p < n && is_name_char((unsigned char)s[p])) {
        size_t q = p;
        while (q < n && is_name_char((unsigned char)s[q]))
            q++;
        tdx_src_kw kw = keyword_of(s + p, q - p);
        if (kw != TDX_KW_IF && kw != TDX_KW_ELSE && kw != TDX_KW_AND && kw != TDX_KW_OR &&
            kw != TDX_KW_IN && kw != TDX_KW_IS && kw != TDX_KW_NOT && kw != TDX_KW_FOR)
            return -1;
    }
    return 0;
}

// Measure the indentation of the line at pos (tabs to the next multiple of
// 8, as CPython does) and emit INDENT/DEDENT tokens. Returns 0, 1 when the
// line is blank or a comment only (no tokens), -1 on error.
static int indentation(lexer *lx)
{
    int col = 0;
    size_t p = lx->pos;
    while (p < lx->len) {
        char c = lx->s[p];
        if (c == ' ')
            col++;
        else if (c == '\t')
            col = (col / 8 + 1) * 8;
        else if (c == '\f')
            col = 0;
        else
            break;
        p++;
    }
    lx->pos = p;
    if (p >= lx->len || lx->s[p] == '#' || is_nl(lx, p))
        return 1;
    if (lx->s[p] == '\\' && is_nl(lx, p + 1))
        return 1; /* a lone continuation: the next line decides */
    int32_t c1 = col_of(lx, p);
    if (col > lx->indents[lx->nindents]) {
        if (lx->nindents >= TDX_SRC_MAX_INDENT) {
            lex_error(lx, lx->line, c1, "too many levels of indentation");
            return -1;
        }
        lx->indents[++lx->nindents] = col;
        if (!push(lx, TDX_TOK_INDENT, p, lx->line, c1))
            return -1;
    } else {
        while (col < lx->indents[lx->nindents]) {
            lx->nindents--;
            if (!push(lx, TDX_TOK_DEDENT, p, lx->line, c1))
                return -1;
        }
        if (col != lx->indents[lx->nindents]) {
            lex_error(lx, lx->line, c1, "unindent does not match any outer indentation level");
            return -1;
        }
    }
    return 0;
}

// The bracket that closes an opening one.
static const char *closer_for(char open) { return open == '(' ? ")" : open == '[' ? "]" : "}"; }

// The main loop: one token per iteration.
static void lex(lexer *lx)
{
    int line_has_tokens = 0; /* the current logical line has produced a token */
    int at_line_start = 1;
    while (!lx->failed) {
        if (at_line_start && lx->depth == 0) {
            at_line_start = 0;
            int r = indentation(lx);
            if (r < 0)
                return;
        }
        if (lx->pos >= lx->len)
            break;
        const char *s = lx->s;
        size_t start = lx->pos;
        unsigned char c = (unsigned char)s[start];
        int32_t line = lx->line, col = col_of(lx, start);
        if (c == ' ' || c == '\t' || c == '\f') {
            lx->pos++;
            continue;
        }
        if (c == '#') {
            while (lx->pos < lx->len && s[lx->pos] != '\n' && !is_nl(lx, lx->pos))
                lx->pos++;
            continue;
        }
        if (c == '\r' && !is_nl(lx, start)) {
            lx->pos++; /* a lone carriage return is whitespace here */
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (lx->depth == 0 && line_has_tokens) {
                newline(lx);
                tdx_src_token *t = push(lx, TDX_TOK_NEWLINE, start, line, col);
                if (!t)
                    return;
                t->end_line = line;
                t->end_col = col + (int32_t)(lx->pos - start);
                line_has_tokens = 0;
            } else {
                newline(lx);
            }
            at_line_start = lx->depth == 0;
            continue;
        }
        if (c == '\\') {
            if (is_nl(lx, start + 1)) {
                lx->pos++;
                newline(lx);
                continue;
            }
            if (start + 1 >= lx->len) {
                lex_error(lx, line, col, "unexpected end of input after line continuation");
                return;
            }
            lex_error(lx, line, col, "unexpected character after line continuation character");
            return;
        }
        line_has_tokens = 1;
        int sflags = 0;
        size_t plen = is_name_start(c) ? string_prefix(lx, start, &sflags) : 0;
        if (c == '"' || c == '\'' || plen) {
            lx->pos = start + plen;
            int f = scan_string(lx, sflags, 0);
            if (f < 0) {
                lex_error(lx, line, col, "unterminated string literal");
                return;
            }
            tdx_src_token *t = push(lx, TDX_TOK_STRING, start, line, col);
            if (!t)
                return;
            t->flags = (uint8_t)f;
            continue;
        }
        if (is_name_start(c)) {
            while (lx->pos < lx->len && is_name_char((unsigned char)s[lx->pos]))
                lx->pos++;
            tdx_src_token *t = push(lx, TDX_TOK_NAME, start, line, col);
            if (!t)
                return;
            t->kw = (uint8_t)keyword_of(s + start, lx->pos - start);
            continue;
        }
        if ((c >= '0' && c <= '9') ||
            (c == '.' && start + 1 < lx->len && s[start + 1] >= '0' && s[start + 1] <= '9')) {
            if (scan_number(lx) < 0) {
                lex_error(lx, line, col, "invalid number literal");
                return;
            }
            if (!push(lx, TDX_TOK_NUMBER, start, line, col))
                return;
            continue;
        }
        size_t n;
        tdx_src_op op = match_op(s + start, lx->len - start, &n);
        if (op == TDX_OP_NONE) {
            lex_error(lx, line, col, "invalid character in source");
            return;
        }
        lx->pos += n;
        if (op == TDX_OP_LPAR || op == TDX_OP_LSQB || op == TDX_OP_LBRACE) {
            if (lx->depth >= TDX_SRC_MAX_BRACKETS) {
                lex_error(lx, line, col, "too many nested parentheses");
                return;
            }
            lx->brackets[lx->depth] = (char)c;
            lx->bracket_line[lx->depth] = line;
            lx->bracket_col[lx->depth] = col;
            lx->bracket_pos[lx->depth] = start;
            lx->depth++;
        } else if (op == TDX_OP_RPAR || op == TDX_OP_RSQB || op == TDX_OP_RBRACE) {
            if (lx->depth == 0) {
                char msg[64];
                snprintf(msg, sizeof msg, "unmatched '%c'", c);
                lex_error(lx, line, col, msg);
                return;
            }
            char open = lx->brackets[lx->depth - 1];
            if (closer_for(open)[0] != (char)c) {
                char msg[96];
                snprintf(msg, sizeof msg, "closing '%c' does not match '%c' opened at line %d",
                         c, open, (int)lx->bracket_line[lx->depth - 1]);
                lex_error(lx, line, col, msg);
                return;
            }
            lx->depth--;
        }
        tdx_src_token *t = push(lx, TDX_TOK_OP, start, line, col);
        if (!t)
            return;
        t->op = (uint8_t)op;
    }
    if (lx->failed)
        return;
    if (lx->depth > 0) {
        char msg[64];
        snprintf(msg, sizeof msg, "'%c' was never closed", lx->brackets[lx->depth - 1]);
        lex_error(lx, lx->bracket_line[lx->depth - 1], lx->bracket_col[lx->depth - 1], msg);
        return;
    }
    int32_t col = col_of(lx, lx->pos);
    if (line_has_tokens) {
        tdx_src_token *t = push(lx, TDX_TOK_NEWLINE, lx->pos, lx->line, col);
        if (!t)
            return;
    }
    while (lx->nindents > 0) {
        lx->nindents--;
        if (!push(lx, TDX_TOK_DEDENT, lx->pos, lx->line, col))
            return;
    }
    push(lx, TDX_TOK_EOF, lx->pos, lx->line, col);
}

// Tokenize a whole source into an arena-owned array.
tdx_status tdx_src_tokenize(const char *path, const char *src, size_t len, tdx_arena *arena,
                            tdx_diags *diags, tdx_src_tokens *out)
{
    out->items = NULL;
    out->len = 0;
    if (len > (size_t)INT32_MAX) {
        if (diags)
            tdx_diags_add(diags, TDX_SEV_ERROR, path, 0, 0, "source too large");
        return TDX_ERR_TOOBIG;
    }
    lexer *lx = calloc(1, sizeof *lx);
    if (!lx)
        return TDX_ERR_NOMEM;
    lx->path = path;
    lx->s = src;
    lx->len = len;
    lx->line = 1;
    lx->diags = diags;
    /* a UTF-8 byte order mark is not part of the first line's text */
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0) {
        lx->pos = 3;
    }
    lex(lx);
    tdx_status st = TDX_OK;
    if (lx->failed) {
        st = TDX_ERR_PARSE;
    } else {
        out->items = tdx_arena_alloc(arena, lx->ntoks * sizeof *out->items);
        if (!out->items) {
            st = TDX_ERR_NOMEM;
        } else {
            memcpy(out->items, lx->toks, lx->ntoks * sizeof *out->items);
            out->len = lx->ntoks;
        }
    }
    free(lx->toks);
    free(lx);
    return st;
}
