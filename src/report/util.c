/* Shared helpers of the renderers: file and line look-up, column units,
 * reading order, URIs. */
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

// Index entries by path, then by position in the run.
static int cmp_entries(const void *a, const void *b)
{
    const tdx_rep__entry *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

// Build the sorted index of the run's files.
tdx_status tdx_rep__index_init(tdx_rep__index *ix, const tdx_rep_run *run)
{
    ix->run = run;
    ix->n = 0;
    ix->order = malloc((run->nfiles ? run->nfiles : 1) * sizeof *ix->order);
    if (!ix->order)
        return TDX_ERR_NOMEM;
    for (size_t i = 0; i < run->nfiles; i++)
        if (run->files[i].path)
            ix->order[ix->n++] = (tdx_rep__entry){run->files[i].path, i};
    qsort(ix->order, ix->n, sizeof *ix->order, cmp_entries);
    return TDX_OK;
}

// Release the index (not the files).
void tdx_rep__index_free(tdx_rep__index *ix)
{
    free(ix->order);
    ix->order = NULL;
}

// Binary search for the first file entry with this path.
const tdx_rep_file *tdx_rep__file(const tdx_rep__index *ix, const char *path)
{
    if (!path)
        return NULL;
    size_t lo = 0, hi = ix->n; /* first entry whose path is >= path */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(ix->order[mid].path, path) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ix->n && strcmp(ix->order[lo].path, path) == 0)
        return &ix->run->files[ix->order[lo].i];
    return NULL;
}

// A file's position in the run, for reading order.
size_t tdx_rep__rank(const tdx_rep__index *ix, const char *path)
{
    const tdx_rep_file *f = tdx_rep__file(ix, path);
    return f ? (size_t)(f - ix->run->files) : ix->run->nfiles;
}

// Find line `line` of text by counting newlines.
const char *tdx_rep__line(const char *text, size_t len, int line, size_t *linelen)
{
    if (!text || line < 1)
        return NULL;
    const char *p = text, *end = text + len;
    for (int l = 1; l < line; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    if (p == end && line > 1)
        return NULL; /* past the last line */
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    *linelen = n;
    return p;
}

// Count the code points before a byte column (UTF-8 lead bytes).
int tdx_rep__cp_col(const tdx_rep_file *f, int line, int bytecol)
{
    if (!f || !f->text || bytecol < 1)
        return bytecol;
    size_t n;
    const char *s = tdx_rep__line(f->text, f->len, line, &n);
    if (!s)
        return bytecol;
    size_t upto = (size_t)(bytecol - 1);
    int cp = 1;
    for (size_t i = 0; i < upto; i++) {
        /* Past the end of the line every byte counts as one column. */
        if (i >= n || ((unsigned char)s[i] & 0xC0) != 0x80)
            cp++;
    }
    return cp;
}

typedef struct sort_item {
    tdx_finding *f;
    size_t rank; /* index of the file in the run; nfiles when not in it */
} sort_item;

// Findings in reading order: file rank, file, line, column, rule, id.
static int cmp_items(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    /* Findings without a file (a measurement of the whole kernel) last. */
    if (!x->f->file != !y->f->file)
        return x->f->file ? -1 : 1;
    int c = strcmp(x->f->file ? x->f->file : "", y->f->file ? y->f->file : "");
    if (c)
        return c;
    if (x->f->line != y->f->line)
        return x->f->line < y->f->line ? -1 : 1;
    if (x->f->col != y->f->col)
        return x->f->col < y->f->col ? -1 : 1;
    c = strcmp(x->f->rule->id, y->f->rule->id);
    if (c)
        return c;
    return (x->f->id > y->f->id) - (x->f->id < y->f->id);
}

// A sorted copy of the ledger's finding pointers.
tdx_finding **tdx_rep__sorted(const tdx_rep__index *ix, size_t *n)
{
    const tdx_rep_run *run = ix->run;
    size_t len = run->ledger ? tdx_ledger_count(run->ledger) : 0;
    *n = len;
    sort_item *items = calloc(len ? len : 1, sizeof *items);
    tdx_finding **out = calloc(len ? len : 1, sizeof *out);
    if (!items || !out) {
        free(items);
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        items[i].f = tdx_ledger_at(run->ledger, i);
        items[i].rank = tdx_rep__rank(ix, items[i].f->file);
    }
    qsort(items, len, sizeof *items, cmp_items);
    for (size_t i = 0; i < len; i++)
        out[i] = items[i].f;
    free(items);
    return out;
}

// Strip root (and the slashes after it) from an absolute path under it.
const char *tdx_rep__under(const char *path, const char *root)
{
    if (!path || !root || path[0] != '/' || root[0] != '/')
        return NULL;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (n == 1) /* root is "/" */
        return path[1] ? path + 1 : NULL;
    if (strncmp(path, root, n) != 0 || path[n] != '/')
        return NULL;
    const char *rest = path + n;
    while (*rest == '/')
        rest++;
    return *rest ? rest : NULL;
}

// Append path lexically normalised: "." segments and empty ones dropped,
// "x/.." folded; leading ".." of a relative path kept.
static tdx_status add_normalised(tdx_buf *out, const char *p, int absolute)
{
    size_t n = strlen(p);
    const char **seg = malloc((n / 2 + 2) * sizeof *seg);
    size_t *len = malloc((n / 2 + 2) * sizeof *len);
    if (!seg || !len) {
        free(seg);
        free(len);
        return TDX_ERR_NOMEM;
    }
    size_t k = 0;
    while (*p) {
        size_t m = strcspn(p, "/");
        if (m == 0 || (m == 1 && p[0] == '.')) {
            /* nothing */
        } else if (m == 2 && p[0] == '.' && p[1] == '.') {
            if (k && !(len[k - 1] == 2 && seg[k - 1][0] == '.' && seg[k - 1][1] == '.'))
                k--;
            else if (!absolute)
                seg[k] = p, len[k++] = m;
        } else {
            seg[k] = p, len[k++] = m;
        }
        p += m;
        while (*p == '/')
            p++;
    }
    tdx_status st = absolute ? tdx_buf_addc(out, '/') : TDX_OK;
    for (size_t i = 0; i < k && !st; i++) {
        if (i)
            st = tdx_buf_addc(out, '/');
        if (!st)
            st = tdx_buf_add(out, seg[i], len[i]);
    }
    free(seg);
    free(len);
    return st;
}

// Normalise, relativise and percent-encode a path for SARIF.
tdx_status tdx_rep__uri(const char *path, const char *root, tdx_buf *out)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *under = tdx_rep__under(path, root);
    int absolute = !under && path[0] == '/';
    tdx_buf norm;
    tdx_buf_init(&norm, 0);
    tdx_status st = add_normalised(&norm, under ? under : path, absolute);
    if (!st && absolute)
        st = tdx_buf_adds(out, "file://");
    for (const char *p = tdx_buf_str(&norm); *p && st == TDX_OK; p++) {
        unsigned char c = (unsigned char)*p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
            st = tdx_buf_addc(out, (char)c);
        else
            st = tdx_buf_printf(out, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
    tdx_buf_free(&norm);
    return st;
}

// The level's name as the docs use it.
const char *tdx_rep__level_name(int level)
{
    switch (level) {
    case TDX_LEVEL_TRIAGE: return "source triage";
    case TDX_LEVEL_PROFILE: return "GPU profiling";
    case TDX_LEVEL_IR: return "IR attribution";
    case TDX_LEVEL_COMPILER: return "compiler-grounded analysis";
    }
    return "unknown level";
}

// Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid:
// overlong forms, surrogates and code points past U+10FFFF are invalid
// (RFC 3629), as JSON parsers and Jansson itself require.
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t k;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        k = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    return k;
}

// Copy s, replacing each byte of an invalid UTF-8 sequence by '?'.
char *tdx_rep__utf8_clean(const char *s)
{
    size_t n = strlen(s);
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, j = 0;
    while (i < n) {
        size_t k = utf8_seq(u + i);
        if (k == 0) {
            o[j++] = '?';
            i++;
        } else {
            memcpy(o + j, u + i, k);
            i += k;
            j += k;
        }
    }
    o[j] = '\0';
    return o;
}
