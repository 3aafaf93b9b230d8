#include "base/arena.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tdx_arena_block {
    tdx_arena_block *prev;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
};

void tdx_arena_init(tdx_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->total = 0;
}

void tdx_arena_free(tdx_arena *a)
{
    tdx_arena_block *b = a->head;
    while (b) {
        tdx_arena_block *prev = b->prev;
        free(b);
        b = prev;
    }
    a->head = NULL;
    a->total = 0;
}

void *tdx_arena_alloc(tdx_arena *a, size_t n)
{
    const size_t align = alignof(max_align_t);
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + align - 1) & ~(align - 1);
    if (n == 0)
        n = align;
    tdx_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = n > a->block_size ? n : a->block_size;
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->prev = a->head;
        b->size = size;
        b->used = 0;
        a->head = b;
        a->total += size;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *tdx_arena_strndup(tdx_arena *a, const char *s, size_t n)
{
    char *p = tdx_arena_alloc(a, n + 1);
    if (!p)
        return NULL;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *tdx_arena_strdup(tdx_arena *a, const char *s)
{
    return tdx_arena_strndup(a, s, strlen(s));
}

char *tdx_arena_printf(tdx_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = tdx_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

int tdx_ptrvec_push(tdx_arena *a, tdx_ptrvec *v, void *p)
{
    if (v->len == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        void **items = tdx_arena_alloc(a, cap * sizeof *items);
        if (!items)
            return -1;
        if (v->len)
            memcpy(items, v->items, v->len * sizeof *items);
        v->items = items;
        v->cap = cap;
    }
    v->items[v->len++] = p;
    return 0;
}
