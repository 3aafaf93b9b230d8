/* tdx_buf: a growable byte buffer with a hard cap (like curl's dynbuf).
 * Growing past the cap is an error (TDX_ERR_TOOBIG), never a crash.
 *
 * Ownership: the buffer owns its heap storage; release it with
 * tdx_buf_free(). tdx_buf_detach() hands the storage to the caller (free()). */
#ifndef TDX_BASE_BUF_H
#define TDX_BASE_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "base/status.h"

typedef struct tdx_buf {
    char *data;   /* always NUL-terminated when non-NULL */
    size_t len;
    size_t cap;   /* allocated bytes */
    size_t limit; /* hard cap on len */
} tdx_buf;

/* limit 0 means 1 GiB. */
void tdx_buf_init(tdx_buf *b, size_t limit);
void tdx_buf_free(tdx_buf *b);
void tdx_buf_reset(tdx_buf *b);

tdx_status tdx_buf_add(tdx_buf *b, const void *p, size_t n);
tdx_status tdx_buf_adds(tdx_buf *b, const char *s);
tdx_status tdx_buf_addc(tdx_buf *b, char c);
tdx_status tdx_buf_printf(tdx_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
tdx_status tdx_buf_vprintf(tdx_buf *b, const char *fmt, va_list ap);

/* The contents ("" when empty); valid until the next change. */
const char *tdx_buf_str(const tdx_buf *b);
/* Take the storage (NUL-terminated, may be NULL when empty); b is reset. */
char *tdx_buf_detach(tdx_buf *b, size_t *len);

#endif
