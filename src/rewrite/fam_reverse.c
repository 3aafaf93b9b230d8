/* reverse-pass: the last pass over a range an earlier pass read, walked
 * from its last block down (tdx_km_reversible): the blocks the earlier pass
 * read last, which L2 still holds, are read again first.
 *
 *     for start in range(0, n, BLOCK):
 * becomes
 *     for _tdx_r in range(0, n, BLOCK):
 *         start = (n - 1) // BLOCK * BLOCK - _tdx_r
 */
#include <stdio.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

tdx_status fam_reverse_pass(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        tdx_src_node *def = t->kernels.items[k];
        tdx_km_rev r[4];
        size_t n = tdx_km_reversible(t->m, def, r, 4);
        for (size_t i = 0; i < n && !st; i++) {
            tdx_src_node *var = tdx_src_kid(r[i].loop, TDX_SRC_R_TARGET);
            tdx_src_node *body = tdx_src_next(r[i].loop, TDX_SRC_R_BODY, NULL);
            long long lo = -1, step = -1;
            if (!body || body->line == r[i].loop->line)
                continue; /* a body on the loop's own line */
            if (r[i].lo && r[i].lo->kind == TDX_SRC_NUMBER)
                tdx_src_int_value(t->m, r[i].lo, &lo);
            if (r[i].step && r[i].step->kind == TDX_SRC_NUMBER && (tdx_src_int_value(t->m, r[i].step, &step) ||
                                                                     step < 1))
                continue; /* a literal step that is not positive */
            const char *hi = fam_operand(t, r[i].hi);
            const char *last; /* the loop's last value */
            if (!r[i].lo || lo == 0)
                last = !r[i].step || step == 1
                           ? tdx_arena_printf(&t->arena, "%s - 1", hi)
                           : tdx_arena_printf(&t->arena, "(%s - 1) // %s * %s", hi, fam_operand(t, r[i].step),
                                              fam_operand(t, r[i].step));
            else
                last = tdx_arena_printf(&t->arena, "%s + (%s - 1 - %s) // %s * %s", fam_operand(t, r[i].lo), hi,
                                        fam_operand(t, r[i].lo), r[i].step ? fam_operand(t, r[i].step) : "1",
                                        r[i].step ? fam_operand(t, r[i].step) : "1");
            const char *from = !r[i].lo || lo == 0 ? "_tdx_r"
                                                   : tdx_arena_printf(&t->arena, "(_tdx_r - %s)", fam_operand(t, r[i].lo));
            char *stmt = last && from ? tdx_arena_printf(&t->arena, "%s = %s - %s\n%*s", r[i].var, last, from,
                                                         body->col - 1, "")
                                      : NULL;
            if (!stmt)
                return TDX_ERR_NOMEM;
            fam_edits e = {0};
            fam_edit(t, &e, var->start, var->end, "_tdx_r");
            fam_edit(t, &e, body->start, body->start, stmt);
            char sum[256];
            snprintf(sum, sizeof sum,
                     "%s: the pass over '%s' at line %d walks its blocks from the last down (the pass at line %d "
                     "read them first to last)",
                     def->name ? def->name : "kernel", r[i].base, r[i].loop->line, r[i].first->line);
            st = fam_emit(t, &e, emit, ud, "reverse-pass", sum);
        }
    }
    return st;
}
