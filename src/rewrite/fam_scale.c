/* hoist-scale: a loop-invariant scale of a tl.dot result moved onto the
 * dot's loop-invariant operand (tdx_km_scaled_dots).
 *
 *     q = tl.load(...)                      q = tl.load(...)
 *     for ...:                              _tdx_s0 = (q * sm_scale).to(q.dtype)
 *         qk = tl.dot(q, k) * sm_scale  ->  for ...:
 *                                               qk = tl.dot(_tdx_s0, k)
 *
 * The multiply ran on each element of every iteration's dot result (one
 * FMUL each, in the attention kernel's softmax, which issues more
 * instructions than its MMAs); it now runs once on the operand's tile. The
 * operand is rounded to its own dtype after the multiply (fp16: a relative
 * 2^-11), as the scaled logits of an fp16 attention are anyway. One
 * hoisted copy per operand and scale, shared by every loop that uses the
 * pair (the two loops of a peeled attention), placed before the first
 * statement of the kernel's body that holds one of them.
 *
 * Every site is rewritten, including a wgmma's first operand, which the
 * scaled copy moves from shared memory to registers (slower on the H200 for
 * the attentions: bench/RESULTS.md, seventeenth session); TDX026, which
 * proposes the family in the loop, names only kernels with a site that
 * stays where the MMA reads it, so the family runs there on request or for
 * such a kernel (a kernel holding both kinds of site gets both rewritten). */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

enum { MAX_SITES = 16 };

tdx_status fam_hoist_scale(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    for (size_t k = 0; k < t->kernels.len && !st; k++) {
        tdx_src_node *def = t->kernels.items[k];
        tdx_km_scaled_dot s[MAX_SITES];
        size_t n = tdx_km_scaled_dots(t->m, def, s, MAX_SITES);
        if (!n)
            continue;
        fam_edits e = {0};
        int group[MAX_SITES];
        int ngroup = 0, bad = 0;
        for (size_t i = 0; i < n && !bad; i++) {
            group[i] = -1;
            for (size_t j = 0; j < i && group[i] < 0; j++)
                if (tdx_src_same_text(t->m, s[i].operand, s[j].operand) &&
                    tdx_src_same_text(t->m, s[i].scale, s[j].scale))
                    group[i] = group[j];
            if (group[i] < 0) {
                group[i] = ngroup++;
                char var[32];
                snprintf(var, sizeof var, "_tdx_s%d", group[i]);
                if (tdx_src_count_name(def, var)) {
                    bad = 1;
                    break;
                }
                /* before the first statement of def's body that holds a loop
                 * using the pair (sites come in source order) */
                const tdx_src_node *a = s[i].anchor;
                size_t ls = fam_line_start(t, a->start), cl;
                const char *c = tdx_src_text(t->m, s[i].scale, &cl);
                int atom = fam_atom(s[i].scale);
                fam_edit(t, &e, ls, ls,
                         tdx_arena_printf(&t->arena, "%.*s%s = (%s * %s%.*s%s).to(%s.dtype)\n", (int)(a->start - ls),
                                          t->src + ls, var, s[i].operand->name, atom ? "" : "(", (int)cl, c,
                                          atom ? "" : ")", s[i].operand->name));
            }
            /* the product becomes the dot, reading the scaled copy */
            const tdx_src_node *d = s[i].dot, *x = s[i].operand;
            fam_edit(t, &e, s[i].product->start, s[i].product->end,
                     tdx_arena_printf(&t->arena, "%.*s_tdx_s%d%.*s", (int)(x->start - d->start), t->src + d->start,
                                      group[i], (int)(d->end - x->end), t->src + x->end));
        }
        if (bad || !e.n)
            continue;
        char sum[256];
        size_t cl;
        const char *c = tdx_src_text(t->m, s[0].scale, &cl);
        snprintf(sum, sizeof sum, "%s: %zu tl.dot result%s scaled by %.*s in the loop: the scale applied to %s once before it",
                 def->name ? def->name : "kernel", n, n == 1 ? "" : "s", (int)(cl > 60 ? 60 : cl), c,
                 s[0].operand->name);
        st = fam_emit(t, &e, emit, ud, "hoist-scale", sum);
    }
    return st;
}
