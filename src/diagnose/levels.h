/* The levels this build provides, wired for tdx_dx_run (tdx_dx_levels_*). */
#ifndef TDX_DIAGNOSE_LEVELS_H
#define TDX_DIAGNOSE_LEVELS_H

#include "diagnose/diagnose.h"

/* Fill opts->levels with every level available: 0 always; 1 when a GPU is
 * visible (it runs the harness's ceilings and time verbs); 2 and 3 as they
 * are built. */
void tdx_dx_levels_default(tdx_dx_opts *opts);

/* Non-zero when an NVIDIA GPU is visible to this process. */
int tdx_dx_have_gpu(void);

#endif
