/* The textual guard: did a candidate keep launch's signature and leave
 * reference, make_inputs and SHAPES alone? */
#include "llm/extract.h"

#include <stdint.h>
#include <string.h>

/* A line scanner that knows enough Python to tell where a top-level
 * statement starts: it tracks brackets, string literals (triple-quoted ones
 * span lines), comments and backslash continuations. */
typedef struct scan {
    const char *s;
    size_t n, i;  /* i: start of the current physical line */
    int depth;    /* open brackets */
    char quote;   /* open string's quote char, 0 when none */
    int triple;   /* the open string is triple-quoted */
    int cont;     /* the previous line ended with a backslash */
} scan;

/* Whether the current line starts a top-level statement. */
static int at_top(const scan *sc)
{
    if (sc->i >= sc->n || sc->depth > 0 || sc->quote || sc->cont)
        return 0;
    char c = sc->s[sc->i];
    return c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '#' && c != '\f';
}

/* Consume one physical line, updating the lexical state. */
static void scan_line(scan *sc)
{
    const char *s = sc->s;
    size_t i = sc->i, n = sc->n;
    sc->cont = 0;
    while (i < n && s[i] != '\n') {
        char c = s[i];
        if (sc->quote) {
            if (c == '\\' && i + 1 < n && s[i + 1] != '\n') {
                i += 2;
                continue;
            }
            if (c == sc->quote) {
                if (!sc->triple) {
                    sc->quote = 0;
                } else if (i + 2 < n && s[i + 1] == c && s[i + 2] == c) {
                    sc->quote = 0;
                    i += 3;
                    continue;
                }
            }
            i++;
            continue;
        }
        if (c == '#') {
            while (i < n && s[i] != '\n')
                i++;
            break;
        }
        if (c == '"' || c == '\'') {
            sc->quote = c;
            sc->triple = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
            i += sc->triple ? 3 : 1;
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            sc->depth++;
        else if ((c == ')' || c == ']' || c == '}') && sc->depth > 0)
            sc->depth--;
        else if (c == '\\' && (i + 1 == n || s[i + 1] == '\n' ||
                               (s[i + 1] == '\r' && (i + 2 == n || s[i + 2] == '\n'))))
            sc->cont = 1;
        i++;
    }
    /* A one-quote string cannot cross a line end (without a backslash). */
    if (sc->quote && !sc->triple && !(i > sc->i && s[i - 1] == '\\'))
        sc->quote = 0;
    sc->i = i < n ? i + 1 : n;
}

/* Whether c may continue a Python identifier. */
static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the statement at p opens with `def NAME(` (def_form) or assigns
 * to NAME (`NAME =`, `NAME: T =`). */
static int stmt_matches(const char *s, size_t n, size_t p, const char *name, int def_form)
{
    size_t m = strlen(name);
    if (def_form) {
        if (n - p < 4 || memcmp(s + p, "def", 3) != 0 || (s[p + 3] != ' ' && s[p + 3] != '\t'))
            return 0;
        p += 3;
        while (p < n && (s[p] == ' ' || s[p] == '\t'))
            p++;
    }
    if (n - p < m || memcmp(s + p, name, m) != 0 || (p + m < n && is_ident(s[p + m])))
        return 0;
    p += m;
    while (p < n && (s[p] == ' ' || s[p] == '\t'))
        p++;
    if (p >= n)
        return 0;
    if (def_form)
        return s[p] == '(';
    return s[p] == ':' || (s[p] == '=' && (p + 1 >= n || s[p + 1] != '='));
}

/* Find the top-level statement NAME; its text is [*b, *e) without trailing
 * blank and column-0 comment lines. Returns 0 when absent. */
static int find_stmt(const char *s, size_t n, const char *name, int def_form, size_t *b, size_t *e)
{
    scan sc = {.s = s, .n = n};
    while (sc.i < n) {
        if (at_top(&sc) && stmt_matches(s, n, sc.i, name, def_form)) {
            *b = sc.i;
            scan_line(&sc);
            while (sc.i < n && !at_top(&sc))
                scan_line(&sc);
            size_t end = sc.i;
            /* Trim trailing lines that belong to nobody: blank or comment
             * lines in column 0 before the next statement. */
            for (;;) {
                size_t k = end;
                if (k > *b && s[k - 1] == '\n')
                    k--;
                size_t ls = k;
                while (ls > *b && s[ls - 1] != '\n')
                    ls--;
                if (ls == *b)
                    break;
                int drop = s[ls] == '#';
                if (!drop) {
                    drop = 1;
                    for (size_t q = ls; q < k; q++)
                        if (s[q] != ' ' && s[q] != '\t' && s[q] != '\r')
                            drop = 0;
                }
                if (!drop)
                    break;
                end = ls;
            }
            *e = end;
            return 1;
        }
        scan_line(&sc);
    }
    return 0;
}

/* How many top-level statements bind NAME, by def or by assignment. */
static int count_binds(const char *s, size_t n, const char *name)
{
    scan sc = {.s = s, .n = n};
    int k = 0;
    while (sc.i < n) {
        if (at_top(&sc) &&
            (stmt_matches(s, n, sc.i, name, 1) || stmt_matches(s, n, sc.i, name, 0)))
            k++;
        scan_line(&sc);
    }
    return k;
}

/* Line-by-line equality ignoring trailing whitespace and CR. */
static int same_text(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    while (i < an || j < bn) {
        size_t ie = i, je = j;
        while (ie < an && a[ie] != '\n')
            ie++;
        while (je < bn && b[je] != '\n')
            je++;
        size_t ae = ie, be = je;
        while (ae > i && (a[ae - 1] == ' ' || a[ae - 1] == '\t' || a[ae - 1] == '\r'))
            ae--;
        while (be > j && (b[be - 1] == ' ' || b[be - 1] == '\t' || b[be - 1] == '\r'))
            be--;
        if (ae - i != be - j || memcmp(a + i, b + j, ae - i) != 0)
            return 0;
        if ((ie < an) != (je < bn))
            return 0;
        i = ie < an ? ie + 1 : an;
        j = je < bn ? je + 1 : bn;
    }
    return 1;
}

/* A running FNV-1a hash of a normalized character stream. */
typedef struct sig {
    uint64_t h;
    size_t len;
} sig;

/* Feed one character to the hash. */
static void sig_put(sig *g, char c)
{
    g->h = (g->h ^ (unsigned char)c) * 1099511628211ULL;
    g->len++;
}

/* The parameter-list writer: a separator goes in before each parameter
 * but the first, so a trailing comma leaves no trace. */
typedef struct params {
    sig g;
    int done;    /* parameters finished */
    int pending; /* characters of the current one emitted */
    int in_ann;  /* inside an annotation (skipped) */
} params;

/* Emit one character of the current parameter (not of an annotation). */
static void param_put(params *p, char c)
{
    if (p->in_ann)
        return;
    if (!p->pending && p->done > 0)
        sig_put(&p->g, ',');
    p->pending = 1;
    sig_put(&p->g, c);
}

/* Hash launch's parameter list in a normal form: whitespace, comments and
 * annotations dropped, names, kinds (*, **, /) and defaults kept, trailing
 * comma ignored. p points at the opening parenthesis. */
static sig param_sig(const char *s, size_t n, size_t p)
{
    params w = {.g = {14695981039346656037ULL, 0}};
    int depth = 0; /* brackets inside the parameter list */
    char quote = 0;
    int triple = 0;
    for (size_t i = p + 1; i < n; i++) {
        char c = s[i];
        if (quote) {
            param_put(&w, c);
            if (c == '\\' && i + 1 < n) {
                param_put(&w, s[++i]);
            } else if (c == quote && (!triple || (i + 2 < n && s[i + 1] == c && s[i + 2] == c))) {
                if (triple) {
                    param_put(&w, c);
                    param_put(&w, c);
                    i += 2;
                }
                quote = 0;
            }
            continue;
        }
        if (c == '#') {
            while (i + 1 < n && s[i + 1] != '\n')
                i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\')
            continue;
        if (c == '"' || c == '\'') {
            quote = c;
            triple = i + 2 < n && s[i + 1] == c && s[i + 2] == c;
            param_put(&w, c);
            if (triple) {
                param_put(&w, c);
                param_put(&w, c);
                i += 2;
            }
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        if (c == ')' || c == ']' || c == '}') {
            if (depth == 0)
                break; /* the closing parenthesis of the list */
            depth--;
        }
        if (depth == 0 && c == ',') {
            w.in_ann = 0;
            if (w.pending)
                w.done++;
            w.pending = 0;
            continue;
        }
        if (depth == 0 && c == ':' && !w.in_ann) {
            w.in_ann = 1;
            continue;
        }
        if (depth == 0 && c == '=' && w.in_ann)
            w.in_ann = 0; /* the default after an annotation */
        param_put(&w, c);
    }
    return w.g;
}

/* The opening parenthesis of the def starting at b. */
static size_t def_paren(const char *s, size_t n, size_t b)
{
    while (b < n && s[b] != '(')
        b++;
    return b;
}

/* Compare one protected top-level statement between original and candidate.
 * One the original lacks must stay absent: a candidate that adds a looser
 * TOLERANCE or its own flops() is changing how it is judged. */
static tdx_llm_keep keep_text(const char *o, size_t on, const char *c, size_t cn, const char *name,
                              int def_form)
{
    size_t ob, oe, cb, ce;
    int in_orig = find_stmt(o, on, name, def_form, &ob, &oe);
    int in_code = find_stmt(c, cn, name, def_form, &cb, &ce);
    if (!in_orig)
        return in_code ? TDX_LLM_KEEP_CHANGED : TDX_LLM_KEEP_ABSENT;
    if (!in_code)
        return TDX_LLM_KEEP_MISSING;
    /* `reference = launch` after an untouched def is a change too. */
    if (count_binds(o, on, name) != count_binds(c, cn, name))
        return TDX_LLM_KEEP_CHANGED;
    return same_text(o + ob, oe - ob, c + cb, ce - cb) ? TDX_LLM_KEEP_SAME : TDX_LLM_KEEP_CHANGED;
}

static int has_text(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, needle, m) == 0)
            return 1;
    return 0;
}

/* Compare the protected parts of candidate and original; the first breach is the reason. */
void tdx_llm_guard_check(const char *orig, size_t olen, const char *code, size_t clen,
                         tdx_llm_guard *g)
{
    memset(g, 0, sizeof *g);
    if (!orig) {
        orig = "";
        olen = 0;
    }
    if (!code) {
        code = "";
        clen = 0;
    }
    size_t ob, oe, cb, ce;
    if (!find_stmt(orig, olen, "launch", 1, &ob, &oe))
        g->launch = TDX_LLM_KEEP_ABSENT;
    else if (!find_stmt(code, clen, "launch", 1, &cb, &ce))
        g->launch = TDX_LLM_KEEP_MISSING;
    else {
        sig a = param_sig(orig, oe, def_paren(orig, oe, ob));
        sig b = param_sig(code, ce, def_paren(code, ce, cb));
        g->launch = a.h == b.h && a.len == b.len ? TDX_LLM_KEEP_SAME : TDX_LLM_KEEP_CHANGED;
    }
    g->reference = keep_text(orig, olen, code, clen, "reference", 1);
    g->make_inputs = keep_text(orig, olen, code, clen, "make_inputs", 1);
    g->shapes = keep_text(orig, olen, code, clen, "SHAPES", 0);
    g->tolerance = keep_text(orig, olen, code, clen, "TOLERANCE", 0);
    g->flops = keep_text(orig, olen, code, clen, "flops", 1);
    g->bytes = keep_text(orig, olen, code, clen, "bytes", 1);
    g->has_kernel = has_text(code, clen, "@triton.jit");

    g->reason = "";
    if (g->launch == TDX_LLM_KEEP_MISSING)
        g->reason = "the candidate no longer defines launch";
    else if (g->launch == TDX_LLM_KEEP_CHANGED)
        g->reason = "the candidate changed launch's parameter list";
    else if (g->reference == TDX_LLM_KEEP_MISSING)
        g->reason = "the candidate dropped reference";
    else if (g->reference == TDX_LLM_KEEP_CHANGED)
        g->reason = "the candidate changed reference";
    else if (g->make_inputs == TDX_LLM_KEEP_MISSING)
        g->reason = "the candidate dropped make_inputs";
    else if (g->make_inputs == TDX_LLM_KEEP_CHANGED)
        g->reason = "the candidate changed make_inputs";
    else if (g->shapes == TDX_LLM_KEEP_MISSING)
        g->reason = "the candidate dropped SHAPES";
    else if (g->shapes == TDX_LLM_KEEP_CHANGED)
        g->reason = "the candidate changed SHAPES";
    else if (g->tolerance == TDX_LLM_KEEP_MISSING)
        g->reason = "the candidate dropped TOLERANCE";
    else if (g->tolerance == TDX_LLM_KEEP_CHANGED)
        g->reason = "the candidate changed or added TOLERANCE";
    else if (g->flops == TDX_LLM_KEEP_MISSING || g->bytes == TDX_LLM_KEEP_MISSING)
        g->reason = "the candidate dropped flops or bytes";
    else if (g->flops == TDX_LLM_KEEP_CHANGED || g->bytes == TDX_LLM_KEEP_CHANGED)
        g->reason = "the candidate changed or added flops or bytes";
    else if (!g->has_kernel)
        g->reason = "the candidate has no @triton.jit kernel";
}

/* No breach found. */
int tdx_llm_guard_ok(const tdx_llm_guard *g) { return g->reason[0] == '\0'; }

const char *tdx_llm_keep_str(tdx_llm_keep k)
{
    switch (k) {
    case TDX_LLM_KEEP_SAME: return "same";
    case TDX_LLM_KEEP_CHANGED: return "changed";
    case TDX_LLM_KEEP_MISSING: return "missing";
    case TDX_LLM_KEEP_ABSENT: return "absent";
    }
    return "?";
}
