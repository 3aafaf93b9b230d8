/* Span edits and a line-based Myers diff. */
#include "rewrite/edit.h"

#include <stdlib.h>
#include <string.h>

typedef struct order {
    size_t idx;
    const tdx_rw_edit *e;
} order;

static int cmp_order(const void *x, const void *y)
{
    const order *a = x, *b = y;
    if (a->e->start != b->e->start)
        return a->e->start < b->e->start ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

tdx_status tdx_rw_apply(const char *src, size_t len, const tdx_rw_edit *edits, size_t n,
                        tdx_buf *out)
{
    tdx_buf_reset(out);
    order *ord = malloc((n ? n : 1) * sizeof *ord);
    if (!ord)
        return TDX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        ord[i].idx = i;
        ord[i].e = &edits[i];
        if (edits[i].start > edits[i].end || edits[i].end > len) {
            free(ord);
            return TDX_ERR_ARG;
        }
    }
    qsort(ord, n, sizeof *ord, cmp_order);
    size_t pos = 0;
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < n && !st; i++) {
        const tdx_rw_edit *e = ord[i].e;
        if (e->start < pos) {
            st = TDX_ERR_ARG; /* overlaps the previous edit */
            break;
        }
        st = tdx_buf_add(out, src + pos, e->start - pos);
        if (!st && e->text)
            st = tdx_buf_adds(out, e->text);
        pos = e->end;
    }
    if (!st)
        st = tdx_buf_add(out, src + pos, len - pos);
    free(ord);
    if (st)
        tdx_buf_reset(out);
    return st;
}

/* A text split into lines (each with its newline, if any). */
typedef struct lines {
    const char **p;
    size_t *n;
    size_t count;
} lines;

static tdx_status split(const char *s, size_t len, lines *L)
{
    /* count first, then allocate once (zeroed) and fill */
    size_t count = 0;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(s + i, '\n', len - i);
        i = nl ? (size_t)(nl - s) + 1 : len;
        count++;
    }
    L->count = 0;
    L->p = calloc(count + 1, sizeof *L->p);
    L->n = calloc(count + 1, sizeof *L->n);
    if (!L->p || !L->n)
        return TDX_ERR_NOMEM;
    size_t i = 0;
    while (i < len && L->count < count) {
        const char *nl = memchr(s + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - s) + 1 : len;
        L->p[L->count] = s + i;
        L->n[L->count] = end - i;
        L->count++;
        i = end;
    }
    return TDX_OK;
}

static int line_eq(const lines *A, size_t i, const lines *B, size_t j)
{
    return A->n[i] == B->n[j] && memcmp(A->p[i], B->p[j], A->n[i]) == 0;
}

/* Myers' O(ND) diff; fills op[] with the edit script: '=' keep, '-' delete from a,
 * '+' insert from b, in order. Returns the number of ops or -1 (too big / no memory). */
static long myers(const lines *A, const lines *B, size_t max_d, char *op)
{
    long n = (long)A->count, m = (long)B->count;
    long max = n + m;
    long dmax = (long)max_d < max ? (long)max_d : max;
    long width = 2 * dmax + 1;
    /* trace of V arrays, one per d, to backtrack */
    long *trace = malloc((size_t)(dmax + 1) * (size_t)width * sizeof *trace);
    long *v = calloc((size_t)width + 2, sizeof *v);
    if (!trace || !v) {
        free(trace);
        free(v);
        return -1;
    }
    long off = dmax + 1; /* v[k + off] */
    long found = -1;
    for (long d = 0; d <= dmax && found < 0; d++) {
        for (long k = -d; k <= d; k += 2) {
            long x;
            if (k == -d || (k != d && v[k - 1 + off] < v[k + 1 + off]))
                x = v[k + 1 + off];
            else
                x = v[k - 1 + off] + 1;
            long y = x - k;
            while (x < n && y < m && line_eq(A, (size_t)x, B, (size_t)y)) {
                x++;
                y++;
            }
            v[k + off] = x;
            if (x >= n && y >= m) {
                found = d;
                break;
            }
        }
        memcpy(trace + d * width, v + 1, (size_t)width * sizeof *v);
    }
    if (found < 0) {
        free(trace);
        free(v);
        return -1;
    }
    /* backtrack from (n, m) */
    long x = n, y = m, nops = 0;
    char *rev = malloc((size_t)(n + m + 1));
    if (!rev) {
        free(trace);
        free(v);
        return -1;
    }
    for (long d = found; d > 0; d--) {
        const long *pv = trace + (d - 1) * width - 1; /* pv[k + off] */
        long k = x - y;
        long pk = (k == -d || (k != d && pv[k - 1 + off] < pv[k + 1 + off])) ? k + 1 : k - 1;
        long px = pv[pk + off], py = px - pk;
        while (x > px && y > py) {
            rev[nops++] = '=';
            x--;
            y--;
        }
        if (x == px)
            rev[nops++] = '+', y--;
        else
            rev[nops++] = '-', x--;
    }
    while (x > 0 && y > 0) {
        rev[nops++] = '=';
        x--;
        y--;
    }
    for (long i = 0; i < nops; i++)
        op[i] = rev[nops - 1 - i];
    free(rev);
    free(trace);
    free(v);
    return nops;
}

static tdx_status emit_line(tdx_buf *out, char tag, const char *p, size_t n)
{
    tdx_status st = tdx_buf_addc(out, tag);
    if (!st)
        st = tdx_buf_add(out, p, n);
    if (!st && (n == 0 || p[n - 1] != '\n')) {
        st = tdx_buf_adds(out, "\n\\ No newline at end of file\n");
    }
    return st;
}

tdx_status tdx_rw_diff(const char *a, size_t alen, const char *b, size_t blen, const char *name_a,
                       const char *name_b, int context, size_t max_edit, tdx_buf *out)
{
    if (alen == blen && memcmp(a, b, alen) == 0)
        return TDX_OK;
    lines A = {0}, B = {0};
    tdx_status st = split(a, alen, &A);
    if (!st)
        st = split(b, blen, &B);
    char *op = NULL;
    long nops = 0;
    if (!st) {
        op = calloc(A.count + B.count + 1, 1);
        if (!op)
            st = TDX_ERR_NOMEM;
    }
    if (!st) {
        nops = myers(&A, &B, max_edit ? max_edit : 20000, op);
        if (nops < 0)
            st = TDX_ERR_TOOBIG;
    }
    if (!st)
        st = tdx_buf_printf(out, "--- %s\n+++ %s\n", name_a, name_b);
    /* group ops into hunks with `context` lines around each change */
    long i = 0;
    while (!st && i < nops) {
        while (i < nops && op[i] == '=')
            i++;
        if (i >= nops)
            break;
        long start = i - context < 0 ? 0 : i - context;
        /* extend the hunk while the next change is within 2*context lines */
        long end = i, last_change = i;
        while (end < nops) {
            if (op[end] != '=')
                last_change = end;
            else if (end - last_change > 2 * context)
                break;
            end++;
        }
        end = last_change + 1 + context;
        if (end > nops)
            end = nops;
        /* line numbers at start */
        long ai = 0, bi = 0;
        for (long j = 0; j < start; j++) {
            if (op[j] != '+')
                ai++;
            if (op[j] != '-')
                bi++;
        }
        long acount = 0, bcount = 0;
        for (long j = start; j < end; j++) {
            if (op[j] != '+')
                acount++;
            if (op[j] != '-')
                bcount++;
        }
        st = tdx_buf_printf(out, "@@ -%ld,%ld +%ld,%ld @@\n", acount ? ai + 1 : ai, acount,
                            bcount ? bi + 1 : bi, bcount);
        for (long j = start; j < end && !st; j++) {
            if (op[j] == '=') {
                st = emit_line(out, ' ', A.p[ai], A.n[ai]);
                ai++;
                bi++;
            } else if (op[j] == '-') {
                st = emit_line(out, '-', A.p[ai], A.n[ai]);
                ai++;
            } else {
                st = emit_line(out, '+', B.p[bi], B.n[bi]);
                bi++;
            }
        }
        i = end;
    }
    free(op);
    free(A.p);
    free(A.n);
    free(B.p);
    free(B.n);
    return st;
}
