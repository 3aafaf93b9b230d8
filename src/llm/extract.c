/* Fenced-code extraction from a model's reply. */
#include "llm/extract.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

/* Replies with more blocks than this are not answers; the rest are ignored. */
enum { MAX_BLOCKS = 256 };

/* Extracted code is never larger than the reply, which the HTTP layer caps;
 * this cap only keeps direct callers (and the fuzzer) honest. */
#define TDX_LLM_CODE_MAX ((size_t)64 << 20)

typedef struct block {
    size_t start, end; /* content lines: [start, end) */
    size_t indent;     /* the opening fence's indentation, removed from each line */
    int python;        /* tagged python/py/python3/py3/triton, or untagged */
    int closed;
} block;

/* Position of needle in s[0..n), or n when absent (memmem is not in C11). */
static size_t find(const char *s, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0 || m > n)
        return m == 0 ? 0 : n;
    for (size_t i = 0; i + m <= n; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, m) == 0)
            return i;
    return n;
}

/* Whether needle occurs in s[0..n). */
static int contains(const char *s, size_t n, const char *needle)
{
    return find(s, n, needle) < n || (n == 0 && needle[0] == '\0');
}

/* End of the line starting at i: the offset of its '\n', or n. */
static size_t line_end(const char *s, size_t n, size_t i)
{
    while (i < n && s[i] != '\n')
        i++;
    return i;
}

/* Offset of the next line after the one starting at i. */
static size_t next_line(const char *s, size_t n, size_t i)
{
    i = line_end(s, n, i);
    return i < n ? i + 1 : n;
}

/* Whether the line [i, e) opens a fence; fills its char, length, indent and
 * whether the info string names Python (or nothing). */
static int fence_open(const char *s, size_t i, size_t e, char *fc, size_t *flen, size_t *indent,
                      int *python)
{
    size_t p = i;
    while (p < e && s[p] == ' ')
        p++;
    if (p >= e || (s[p] != '`' && s[p] != '~'))
        return 0;
    char c = s[p];
    size_t q = p;
    while (q < e && s[q] == c)
        q++;
    if (q - p < 3)
        return 0;
    /* The info string: its first word is the language. A backtick inside
     * it means inline code such as ```x```, not a fence (CommonMark). */
    size_t a = q;
    while (a < e && (s[a] == ' ' || s[a] == '\t'))
        a++;
    size_t b = a;
    while (b < e && !isspace((unsigned char)s[b]) && s[b] != '{')
        b++;
    for (size_t k = q; k < e; k++)
        if (c == '`' && s[k] == '`')
            return 0;
    char lang[16] = "";
    size_t ln = b - a < sizeof lang - 1 ? b - a : sizeof lang - 1;
    for (size_t k = 0; k < ln; k++)
        lang[k] = (char)tolower((unsigned char)s[a + k]);
    lang[ln] = '\0';
    static const char *const py[] = {"", "python", "py", "python3", "py3", "triton"};
    *python = 0;
    if (b - a < sizeof lang - 1)
        for (size_t k = 0; k < sizeof py / sizeof py[0]; k++)
            if (strcmp(lang, py[k]) == 0)
                *python = 1;
    *fc = c;
    *flen = q - p;
    *indent = p - i;
    return 1;
}

/* Whether the line [i, e) closes a fence of char c and length >= flen. */
static int fence_close(const char *s, size_t i, size_t e, char c, size_t flen)
{
    size_t p = i;
    while (p < e && s[p] == ' ')
        p++;
    size_t q = p;
    while (q < e && s[q] == c)
        q++;
    if (q - p < flen)
        return 0;
    while (q < e && (s[q] == ' ' || s[q] == '\t' || s[q] == '\r'))
        q++;
    return q == e;
}

/* Split text into fenced blocks; returns how many were found (all of them,
 * though only the first MAX_BLOCKS are stored). */
static int find_blocks(const char *s, size_t n, block *out)
{
    int nb = 0;
    size_t i = 0;
    while (i < n) {
        size_t e = line_end(s, n, i);
        char c;
        size_t flen, indent;
        int python;
        if (!fence_open(s, i, e, &c, &flen, &indent, &python)) {
            i = next_line(s, n, i);
            continue;
        }
        block b = {.start = next_line(s, n, i), .indent = indent, .python = python};
        size_t j = b.start;
        b.end = n;
        while (j < n) {
            size_t je = line_end(s, n, j);
            if (fence_close(s, j, je, c, flen)) {
                b.end = j;
                b.closed = 1;
                break;
            }
            j = next_line(s, n, j);
        }
        if (b.start > n)
            b.start = n;
        if (nb < MAX_BLOCKS)
            out[nb] = b;
        nb++;
        i = b.closed ? next_line(s, n, j) : n;
    }
    return nb;
}

/* Whether the line [i, e) is only a language name, a model's stray echo of
 * the fence's tag ("python" on the first line of the code). */
static int stray_lang_line(const char *s, size_t i, size_t e)
{
    while (i < e && isspace((unsigned char)s[i]))
        i++;
    while (e > i && isspace((unsigned char)s[e - 1]))
        e--;
    static const char *const names[] = {"python", "py", "python3"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t m = strlen(names[k]);
        if (e - i != m)
            continue;
        size_t j = 0;
        while (j < m && tolower((unsigned char)s[i + j]) == names[k][j])
            j++;
        if (j == m)
            return 1;
    }
    return 0;
}

/* Copy lines [start, end) into out: indentation up to `indent` spaces
 * removed, CR before LF dropped, a stray language line skipped. */
static tdx_status copy_code(const char *s, size_t start, size_t end, size_t indent, tdx_buf *out)
{
    size_t i = start;
    int first = 1;
    while (i < end) {
        size_t e = line_end(s, end, i);
        int blank = 1;
        for (size_t k = i; k < e; k++)
            if (!isspace((unsigned char)s[k]))
                blank = 0;
        if (first && !blank) {
            first = 0;
            if (stray_lang_line(s, i, e)) {
                i = next_line(s, end, i);
                continue;
            }
        }
        size_t p = i;
        while (p < e && p - i < indent && s[p] == ' ')
            p++;
        size_t q = e;
        if (q > p && s[q - 1] == '\r')
            q--;
        tdx_status st = tdx_buf_add(out, s + p, q - p);
        if (!st)
            st = tdx_buf_addc(out, '\n');
        if (st)
            return st;
        i = next_line(s, end, i);
    }
    return TDX_OK;
}

/* Whether a block holds the whole task: a kernel and launch. */
static int is_task(const char *s, size_t n)
{
    return contains(s, n, "@triton.jit") && contains(s, n, "def launch");
}

/* A reply with no fences counts as code only when it plainly is the whole
 * task file: it starts like Python and holds a kernel and launch. */
static int bare_task(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    static const char *const starts[] = {"import ", "from ", "#", "\"\"\"", "'''", "@"};
    int ok = 0;
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
        if (n - i >= strlen(starts[k]) && memcmp(s + i, starts[k], strlen(starts[k])) == 0)
            ok = 1;
    return ok && is_task(s, n);
}

/* Extraction from one stretch of the reply. */
static tdx_status extract_from(const char *text, size_t len, tdx_llm_code *code)
{
    memset(code, 0, sizeof *code);
    code->chosen = -1;
    code->error = "";
    block *blocks = malloc(MAX_BLOCKS * sizeof *blocks);
    if (!blocks) {
        code->error = "out of memory";
        return TDX_ERR_NOMEM;
    }
    int nb = find_blocks(text, len, blocks);
    int stored = nb < MAX_BLOCKS ? nb : MAX_BLOCKS;
    code->nblocks = nb;

    /* The last Python block with the whole task wins: models that show the
     * original before their rewrite put the answer last. Other tags (a
     * ```diff of the change, say) are never the file. */
    int pick = -1;
    for (int k = stored - 1; k >= 0 && pick < 0; k--)
        if (blocks[k].python && is_task(text + blocks[k].start, blocks[k].end - blocks[k].start))
            pick = k;
    if (pick >= 0)
        code->pick = TDX_LLM_PICK_TASK;
    for (int k = 0; k < stored && code->pick == TDX_LLM_PICK_NONE; k++)
        if (blocks[k].python &&
            (pick < 0 || blocks[k].end - blocks[k].start > blocks[pick].end - blocks[pick].start))
            pick = k;
    if (pick >= 0 && code->pick == TDX_LLM_PICK_NONE)
        code->pick = TDX_LLM_PICK_LARGEST;

    tdx_buf out;
    tdx_buf_init(&out, TDX_LLM_CODE_MAX);
    tdx_status st = TDX_OK;
    if (pick >= 0) {
        code->chosen = pick;
        code->unterminated = !blocks[pick].closed;
        st = copy_code(text, blocks[pick].start, blocks[pick].end, blocks[pick].indent, &out);
    } else if (nb == 0 && bare_task(text, len)) {
        code->pick = TDX_LLM_PICK_BARE;
        st = copy_code(text, 0, len, 0, &out);
    } else {
        code->error = nb == 0 ? "reply has no code block" : "reply has no python code block";
        free(blocks);
        return TDX_ERR_NOTFOUND;
    }
    free(blocks);
    if (st) {
        tdx_buf_free(&out);
        code->pick = TDX_LLM_PICK_NONE;
        code->chosen = -1;
        code->error = st == TDX_ERR_TOOBIG ? "code block too large" : "out of memory";
        return st;
    }
    if (!out.data && tdx_buf_add(&out, "", 0)) {
        code->error = "out of memory";
        return TDX_ERR_NOMEM;
    }
    code->code = tdx_buf_detach(&out, &code->len);
    return TDX_OK;
}

/* Extract the task code from a reply, skipping a reasoning preamble. */
tdx_status tdx_llm_extract(const char *text, size_t len, tdx_llm_code *code)
{
    if (!text) {
        text = "";
        len = 0;
    }
    /* Reasoning models (served by vLLM, llama.cpp) think aloud between
     * <think> tags, often quoting the original file; the answer follows
     * the last </think>. Only when that part has no code is the rest used. */
    size_t off = 0;
    for (size_t p = 0; p < len;) {
        size_t k = find(text + p, len - p, "</think>");
        if (k >= len - p)
            break;
        off = p + k + 8;
        p = off;
    }
    tdx_status st = extract_from(text + off, len - off, code);
    if (st == TDX_ERR_NOTFOUND && off > 0)
        st = extract_from(text, len, code);
    return st;
}

/* Release the extracted code. */
void tdx_llm_code_free(tdx_llm_code *code)
{
    free(code->code);
    code->code = NULL;
    code->len = 0;
}
