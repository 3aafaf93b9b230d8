/* tdx_arena: a bump allocator for data that lives and dies together
 * (one parse tree, one IR module, one ledger).
 *
 * Ownership: everything returned by tdx_arena_* belongs to the arena and is
 * freed all at once by tdx_arena_free(); never free() it individually.
 * An arena is not thread-safe. */
#ifndef TDX_BASE_ARENA_H
#define TDX_BASE_ARENA_H

#include <stddef.h>

typedef struct tdx_arena_block tdx_arena_block;

typedef struct tdx_arena {
    tdx_arena_block *head; /* current block, linked to older ones */
    size_t block_size;     /* default size of a new block */
    size_t total;          /* bytes reserved from malloc, for statistics */
} tdx_arena;

/* Initialise an empty arena; block_size 0 picks a default (64 KiB). */
void tdx_arena_init(tdx_arena *a, size_t block_size);
/* Release every block. The arena can be reused after tdx_arena_init. */
void tdx_arena_free(tdx_arena *a);

/* Zeroed, max-aligned memory; NULL when out of memory. */
void *tdx_arena_alloc(tdx_arena *a, size_t n);
/* Copy of s[0..n) with a NUL appended; NULL when out of memory. */
char *tdx_arena_strndup(tdx_arena *a, const char *s, size_t n);
char *tdx_arena_strdup(tdx_arena *a, const char *s);
/* printf into the arena; NULL when out of memory. */
char *tdx_arena_printf(tdx_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A growable array of pointers stored in an arena (old storage is simply
 * abandoned on growth). */
typedef struct tdx_ptrvec {
    void **items;
    size_t len, cap;
} tdx_ptrvec;

/* Append p; returns 0 on success, -1 when out of memory. */
int tdx_ptrvec_push(tdx_arena *a, tdx_ptrvec *v, void *p);

#endif
