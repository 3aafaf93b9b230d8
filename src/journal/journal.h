/* The run journal (tdx_jnl_*): one JSON object per line, appended and
 * flushed to disk as each step finishes, so that an interrupted optimize run
 * can be resumed from what was written.
 *
 * Every entry carries "type" (e.g. "start", "round", "candidate", "keep",
 * "stop") and "seq" (its 1-based position, added by tdx_jnl_append). A crash can
 * leave a partial last line: reading ignores it and reports it in the diags,
 * and the next append starts on a fresh line.
 *
 * Ownership: tdx_jnl_append borrows the entry (the caller keeps its
 * reference). tdx_jnl_read returns a new json array the caller json_decref()s. */
#ifndef TDX_JOURNAL_JOURNAL_H
#define TDX_JOURNAL_JOURNAL_H

#include <jansson.h>

#include "base/diag.h"
#include "base/status.h"

typedef struct tdx_jnl {
    char *path;
    int fd;
    long next_seq;
} tdx_jnl;

/* Open (creating if needed) the journal at path for appending. Existing
 * entries are counted so that seq continues; a partial last line is cut off. */
tdx_status tdx_jnl_open(tdx_jnl *j, const char *path, tdx_diags *diags);
void tdx_jnl_close(tdx_jnl *j);

/* Append one entry (a JSON object): adds "seq", writes one line, fsyncs. */
tdx_status tdx_jnl_append(tdx_jnl *j, json_t *entry);

/* Read every complete entry of the journal at path, in order. */
tdx_status tdx_jnl_read(const char *path, json_t **entries, tdx_diags *diags);

/* The same from text already in memory (path names it in diags): the
 * complete lines of data[0..len), which need not be NUL-terminated.
 * *good_len (may be NULL) gets the length of the prefix read. */
tdx_status tdx_jnl_parse(const char *path, const char *data, size_t len, json_t **entries,
                         size_t *good_len, tdx_diags *diags);

/* The last entry of the given type in entries, or NULL (borrowed). */
json_t *tdx_jnl_last(json_t *entries, const char *type);

#endif
