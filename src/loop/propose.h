/* Proposers for the optimize loop (see loop.h for the interface). */
#ifndef TDX_LOOP_PROPOSE_H
#define TDX_LOOP_PROPOSE_H

#include "loop/loop.h"

/* The built-in, deterministic proposer: the families the findings name (the
 * deciding finding's first), then retune. ud is unused. */
tdx_status tdx_loop_builtin_propose(void *ud, const tdx_loop_ctx *ctx, tdx_loop_cands *out,
                                    tdx_diags *diags);

#endif
