/* Inputs named on a command line (tdx_in_*): files and directories expanded
 * into a deterministic list of source files, each read with a size cap and
 * checked for binary content before anything parses it.
 *
 * Directories are walked recursively for *.py files, in byte order of their
 * names at every level (never the file system's order), skipping hidden
 * entries (".git", ".venv", ...) and __pycache__; symbolic links to
 * directories are not followed inside a walk, so a link loop cannot hang it.
 * A file named explicitly is taken whatever its extension; "-" is the
 * standard input, reported as "<stdin>" (for editors that pipe a buffer).
 *
 * Ownership: a tdx_in_list owns every path and every text it loaded;
 * tdx_in_list_free() releases them. Messages go to the caller's diags. */
#ifndef TDX_INPUT_INPUT_H
#define TDX_INPUT_INPUT_H

#include <stddef.h>

#include "base/arena.h"
#include "base/diag.h"
#include "base/status.h"

/* The name standard input is reported under. */
#define TDX_IN_STDIN_NAME "<stdin>"

/* Default cap on one input file: far above any real kernel source. */
#define TDX_IN_MAX_FILE ((size_t)16 << 20)

typedef struct tdx_in_file {
    const char *path; /* as given, or joined under the directory given */
    const char *arg;  /* the command-line argument it came from */
    int explicit_;    /* named directly rather than found by a walk */
    int stdin_;       /* read from the standard input */
    char *text;       /* NUL-terminated contents once loaded, else NULL */
    size_t len;
    tdx_status status;/* TDX_OK, or why it could not be loaded or parsed */
} tdx_in_file;

typedef struct tdx_in_list {
    tdx_arena arena;    /* paths */
    tdx_in_file *files; /* heap array */
    size_t len, cap;
    size_t nbad;        /* arguments or files that could not be used */
    size_t *seen;       /* open-addressing set of path hashes -> index + 1,
                           so that a file named twice is triaged once */
    size_t seen_cap;
} tdx_in_list;

void tdx_in_list_init(tdx_in_list *l);
void tdx_in_list_free(tdx_in_list *l);

/* Add one argument: a file, or a directory to walk. A path already in the
 * list (the same spelling) is not added again. A path that does not
 * exist or cannot be listed gives a diag "path: error: ..." and
 * TDX_ERR_IO (nbad counts it); a directory with no *.py file adds nothing
 * and gives a note. TDX_ERR_NOMEM on allocation failure. */
tdx_status tdx_in_add(tdx_in_list *l, const char *arg, tdx_diags *d);

/* Read files[i] (at most max bytes; 0 means TDX_IN_MAX_FILE) and reject
 * binary content. On failure the file's status is set, a one-line diag
 * "path: error: ..." is added, nbad is counted and the status returned. */
tdx_status tdx_in_load(tdx_in_list *l, size_t i, size_t max, tdx_diags *d);

/* Read one task file named on a command line: a regular .py file (not a
 * directory, not "-": a task is run from its path) of at most max bytes (0:
 * TDX_IN_MAX_FILE), not binary, with the same one-line diags as
 * tdx_in_add / tdx_in_load. On success *text (NUL-terminated, the caller
 * frees it) and *len are set; otherwise TDX_ERR_IO / TDX_ERR_INPUT /
 * TDX_ERR_TOOBIG and one error in d. */
tdx_status tdx_in_read_task(const char *path, size_t max, char **text, size_t *len, tdx_diags *d);

/* Drop files[i]'s text (after it has been processed) to bound memory. */
void tdx_in_unload(tdx_in_list *l, size_t i);

/* Mark files[i] as unusable with status st (e.g. a parse error found later):
 * nbad is counted once per file. */
void tdx_in_mark_bad(tdx_in_list *l, size_t i, tdx_status st);

#endif
