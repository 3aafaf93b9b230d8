/* Source edits by byte span, and unified diffs (tdx_rw_*).
 *
 * Rewrites change a task file by replacing byte spans found by the parser,
 * so that everything outside the spans stays byte-identical. A diff of the
 * result is what the journal and the reports show.
 *
 * Ownership: edits borrow their text; tdx_rw_apply and tdx_rw_diff append to
 * a caller-owned tdx_buf. */
#ifndef TDX_REWRITE_EDIT_H
#define TDX_REWRITE_EDIT_H

#include <stddef.h>

#include "base/buf.h"
#include "base/status.h"

typedef struct tdx_rw_edit {
    size_t start, end; /* replace src[start, end); start == end inserts */
    const char *text;  /* replacement, NUL-terminated */
} tdx_rw_edit;

/* Apply edits to src[0, len) into out (which is reset first). Edits may come
 * in any order; overlapping edits, or spans past len, give TDX_ERR_ARG and
 * leave out empty. Two insertions at the same offset keep their given order. */
tdx_status tdx_rw_apply(const char *src, size_t len, const tdx_rw_edit *edits, size_t n,
                        tdx_buf *out);

/* Unified diff (like `diff -u`) of a against b with `context` lines of
 * context, labelled with the two names. Appends nothing when equal.
 * Returns TDX_ERR_TOOBIG when the inputs are too different to diff cheaply
 * (more than max_edit line changes; 0 means 20000). */
tdx_status tdx_rw_diff(const char *a, size_t alen, const char *b, size_t blen, const char *name_a,
                       const char *name_b, int context, size_t max_edit, tdx_buf *out);

#endif
