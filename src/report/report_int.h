/* Helpers shared by the renderers of the report module (not public). */
#ifndef TDX_REPORT_REPORT_INT_H
#define TDX_REPORT_REPORT_INT_H

#include <stddef.h>

#include "report/report.h"

/* The run's files sorted by path, for look-ups in O(log n): a renderer
 * meets every finding's file, and a run may hold thousands of files. */
typedef struct tdx_rep__entry {
    const char *path;
    size_t i; /* index into run->files */
} tdx_rep__entry;

typedef struct tdx_rep__index {
    const tdx_rep_run *run;
    tdx_rep__entry *order; /* by path, then index */
    size_t n;
} tdx_rep__index;

tdx_status tdx_rep__index_init(tdx_rep__index *ix, const tdx_rep_run *run);
void tdx_rep__index_free(tdx_rep__index *ix);
/* The run's (first) file entry for path, or NULL. */
const tdx_rep_file *tdx_rep__file(const tdx_rep__index *ix, const char *path);
/* Its position in the run; run->nfiles for a path not in it. */
size_t tdx_rep__rank(const tdx_rep__index *ix, const char *path);

/* The bytes of 1-based line `line` in text (without its newline or a
 * trailing CR); NULL when the text has no such line. */
const char *tdx_rep__line(const char *text, size_t len, int line, size_t *linelen);

/* A 1-based byte column on a line turned into a 1-based column in Unicode
 * code points (what SARIF counts); the byte column when the text is absent. */
int tdx_rep__cp_col(const tdx_rep_file *f, int line, int bytecol);

/* The findings in reading order: by file (in the run's order), line,
 * column, rule id. Caller frees the array (not the findings). */
tdx_finding **tdx_rep__sorted(const tdx_rep__index *ix, size_t *n);

/* A file path as a URI reference: relative paths stay relative ("./"
 * dropped), absolute ones under root (may be NULL) become relative to it,
 * other absolute ones file:// URIs; bytes outside RFC 3986's unreserved
 * set and '/' are percent-encoded. */
tdx_status tdx_rep__uri(const char *path, const char *root, tdx_buf *out);

/* path without root's prefix when it lies under root, else NULL. */
const char *tdx_rep__under(const char *path, const char *root);

/* Human name of a diagnosis level ("source triage", ...). */
const char *tdx_rep__level_name(int level);

/* s with every invalid UTF-8 byte replaced by '?', in a fresh malloc'd
 * string (NULL when out of memory). */
char *tdx_rep__utf8_clean(const char *s);

#endif
