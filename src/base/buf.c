#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tdx_buf_init(tdx_buf *b, size_t limit)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->limit = limit ? limit : (size_t)1 << 30;
}

void tdx_buf_free(tdx_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void tdx_buf_reset(tdx_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static tdx_status reserve(tdx_buf *b, size_t extra)
{
    if (extra > b->limit || b->len > b->limit - extra)
        return TDX_ERR_TOOBIG;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return TDX_OK;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return TDX_ERR_NOMEM;
    b->data = p;
    b->cap = cap;
    return TDX_OK;
}

tdx_status tdx_buf_add(tdx_buf *b, const void *p, size_t n)
{
    tdx_status st = reserve(b, n);
    if (st)
        return st;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return TDX_OK;
}

tdx_status tdx_buf_adds(tdx_buf *b, const char *s) { return tdx_buf_add(b, s, strlen(s)); }

tdx_status tdx_buf_addc(tdx_buf *b, char c) { return tdx_buf_add(b, &c, 1); }

tdx_status tdx_buf_vprintf(tdx_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return TDX_ERR_ARG;
    tdx_status st = reserve(b, (size_t)n);
    if (st)
        return st;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return TDX_OK;
}

tdx_status tdx_buf_printf(tdx_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tdx_status st = tdx_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return st;
}

const char *tdx_buf_str(const tdx_buf *b) { return b->data ? b->data : ""; }

char *tdx_buf_detach(tdx_buf *b, size_t *len)
{
    char *p = b->data;
    if (len)
        *len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
