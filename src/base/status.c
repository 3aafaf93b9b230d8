#include "base/status.h"

const char *tdx_status_str(tdx_status st)
{
    switch (st) {
    case TDX_OK: return "ok";
    case TDX_ERR_NOMEM: return "out of memory";
    case TDX_ERR_IO: return "i/o error";
    case TDX_ERR_TOOBIG: return "too large";
    case TDX_ERR_PARSE: return "parse error";
    case TDX_ERR_INPUT: return "bad input";
    case TDX_ERR_CHILD: return "child process failed";
    case TDX_ERR_NOTFOUND: return "not found";
    case TDX_ERR_ARG: return "invalid argument";
    case TDX_ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown status";
}
