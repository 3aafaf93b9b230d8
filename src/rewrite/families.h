/* Built-in rewrite families (tdx_rw_*): deterministic source edits on the
 * parsed task, by byte span, so that everything they do not touch stays
 * byte-identical.
 *
 * A family looks at the parsed task and emits zero or more candidate sources,
 * each with a one-line summary. Families do not judge whether a candidate is
 * correct or faster: the loop checks and times every one.
 *
 * Ownership: emit() receives a malloc'd source and takes it. */
#ifndef TDX_REWRITE_FAMILIES_H
#define TDX_REWRITE_FAMILIES_H

#include <stddef.h>

#include "base/diag.h"
#include "base/status.h"

typedef tdx_status (*tdx_rw_emit_fn)(void *ud, char *src, size_t len, const char *family,
                                     const char *summary);

struct fam_task; /* the parsed task (src/rewrite/fam_common.h) */

typedef struct tdx_rw_family {
    const char *name;     /* e.g. "retune" — the names findings use */
    const char *needs;    /* what in the source it needs, one line */
    tdx_status (*apply)(struct fam_task *t, tdx_rw_emit_fn emit, void *ud);
} tdx_rw_family;

/* The table of built-in families. */
const tdx_rw_family *tdx_rw_families(size_t *n);
const tdx_rw_family *tdx_rw_family_find(const char *name);

/* Apply one family by name. TDX_ERR_NOTFOUND when no built-in family has it;
 * TDX_ERR_PARSE when the source does not parse. */
tdx_status tdx_rw_apply_family(const char *name, const char *path, const char *src, size_t len,
                               tdx_rw_emit_fn emit, void *ud, tdx_diags *diags);

#endif
