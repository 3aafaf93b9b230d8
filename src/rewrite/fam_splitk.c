/* split-k */
#include "rewrite/fam_common.h"

tdx_status fam_split_k(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    (void)t; (void)emit; (void)ud;
    return TDX_OK;
}
