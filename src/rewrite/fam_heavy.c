/* heavy-first: a kernel whose programs' work grows with their id along one
 * grid axis (tdx_km_heavy_last: a causal attention's key loop runs to
 * (pid_m + 1) * BLOCK_M) takes that axis counted down, so the longest
 * programs start first and the grid ends on short ones:
 *
 *     pid_m = tl.program_id(0)
 * becomes
 *     pid_m = (tl.num_programs(0) - 1 - tl.program_id(0))
 *
 * Each program computes what it did; only which CTA computes it changes,
 * and CUDA promises no order among CTAs. */
#include <stdio.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

tdx_status fam_heavy_first(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    const tdx_km_file *f = fam_model(t);
    if (!f)
        return TDX_OK;
    tdx_status st = TDX_OK;
    for (size_t i = 0; i < f->kernels.len && !st; i++) {
        const tdx_km_kernel *k = f->kernels.items[i];
        const tdx_src_node *def = k->def;
        tdx_km_heavy h;
        if (!tdx_km_heavy_last(f, k, &h))
            continue;
        char *text = tdx_arena_printf(&t->arena, "(tl.num_programs(%lld) - 1 - tl.program_id(%lld))", h.axis, h.axis);
        if (!text)
            return TDX_ERR_NOMEM;
        fam_edits e = {0};
        fam_edit(t, &e, h.pid->start, h.pid->end, text);
        char sum[256];
        snprintf(sum, sizeof sum,
                 "%s: programs taken with %s counted down along grid axis %lld, the longest first (the loop at "
                 "line %d runs longer the larger %s)",
                 def->name ? def->name : "kernel", h.var, h.axis, h.loop->line, h.var);
        st = fam_emit(t, &e, emit, ud, "heavy-first", sum);
    }
    return st;
}
