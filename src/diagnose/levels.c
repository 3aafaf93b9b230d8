/* Which levels run here. */
#include "diagnose/levels.h"

#include "analyze/analyze.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int tdx_dx_have_gpu(void)
{
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd && (cvd[0] == '\0' || cvd[0] == '-'))
        return 0;
    return access("/dev/nvidiactl", F_OK) == 0;
}

static tdx_status level_needs_gpu(void *ud, const char *task_path, const char *src, size_t len,
                                  tdx_ledger *ledger, tdx_dx_cost *cost, char *why, size_t why_len,
                                  tdx_diags *diags)
{
    (void)ud, (void)task_path, (void)src, (void)len, (void)ledger, (void)cost, (void)diags;
    snprintf(why, why_len, "no GPU visible: profiling needs one");
    return TDX_ERR_UNSUPPORTED;
}

void tdx_dx_levels_default(tdx_dx_opts *o)
{
    o->levels[0].run = tdx_dx_level0;
    o->levels[1].run = tdx_dx_have_gpu() ? tdx_dx_level1 : level_needs_gpu;
    /* Levels 2 and 3 share one capture of the task as launched (ahead of
     * time for sm_90 with no GPU, through the JIT with one). */
    static tdx_an_session session;
    session.env.mode = tdx_dx_have_gpu() ? "jit" : "aot";
    o->levels[2].run = tdx_an_level2;
    o->levels[2].ud = &session;
    o->levels[3].run = tdx_an_level3;
    o->levels[3].ud = &session;
}
