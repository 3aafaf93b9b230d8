/* Level 0 triage: placeholder until the parser and the rules land. */
#include "triage/triage.h"

tdx_status tdx_tri_source(const char *path, const char *src, size_t len, tdx_ledger *ledger,
                          tdx_diags *diags)
{
    (void)path;
    (void)src;
    (void)len;
    (void)ledger;
    (void)diags;
    return TDX_OK;
}
