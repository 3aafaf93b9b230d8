/* tdx status codes: every fallible core function returns one of these.
 * Messages travel separately, in a tdx_diags list (diag.h). */
#ifndef TDX_BASE_STATUS_H
#define TDX_BASE_STATUS_H

typedef enum tdx_status {
    TDX_OK = 0,
    TDX_ERR_NOMEM,    /* an allocation failed */
    TDX_ERR_IO,       /* a file could not be read or written */
    TDX_ERR_TOOBIG,   /* input or output over its cap */
    TDX_ERR_PARSE,    /* input text is malformed (details in the diags) */
    TDX_ERR_INPUT,    /* input is of the wrong kind (binary, not Python, ...) */
    TDX_ERR_CHILD,    /* a child process failed (crash, timeout, bad output) */
    TDX_ERR_NOTFOUND, /* a looked-up thing does not exist */
    TDX_ERR_ARG,      /* a caller passed an invalid argument */
    TDX_ERR_UNSUPPORTED
} tdx_status;

/* Short lower-case name of a status, e.g. "parse error". Never NULL. */
const char *tdx_status_str(tdx_status st);

#endif
