/* relax-atomics: `sem="relaxed"` on the atomics whose default acq_rel
 * ordering serves nothing (tdx_km_relaxable, model_atomic.c; rule TDX023).
 * With the result unused a relaxed atomic lowers to a REDG on sm_90; an
 * acq_rel one to an ATOMG with a MEMBAR.ALL.GPU and an L1 invalidate. The
 * sums, maxima and minima are the same (float sums in another order, as
 * any atomic order gives). One candidate per kernel. */
#include <stdio.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

tdx_status fam_relax_atomics(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        tdx_src_node *def = t->kernels.items[k];
        const tdx_src_node *site[TDX_KM_ATOMIC_MAX];
        size_t n = tdx_km_relaxable(def, site, TDX_KM_ATOMIC_MAX);
        if (!n)
            continue;
        fam_edits e = {0};
        for (size_t i = 0; i < n; i++)
            fam_set_kwarg(t, &e, site[i], "sem", "\"relaxed\"");
        char sum[200];
        snprintf(sum, sizeof sum, "%s: %zu atomic%s whose result is unused made relaxed (no acq_rel fence)",
                 def->name ? def->name : "kernel", n, n == 1 ? "" : "s");
        st = fam_emit(t, &e, emit, ud, "relax-atomics", sum);
    }
    return st;
}
