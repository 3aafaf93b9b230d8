/* erf-polynomial: tl.math.erf (libdevice's __nv_erff, about twenty
 * instructions an element) as Abramowitz & Stegun 7.1.26, |error| <=
 * 1.5e-7: a helper @triton.jit function before the first kernel, and each
 * kernel's tl.math.erf / tl.erf calls call it. The reciprocal is
 * tl.math.fdiv's (div.full.f32: one MUFU.RCP and a multiply), whose two
 * ulps change erf by less than the approximation itself. */
#include <string.h>

#include "rewrite/fam_common.h"

static const char helper[] =
    "@triton.jit\n"
    "def _tdx_erf(z):\n"
    "    \"\"\"erf(z) as Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7): a reciprocal, an exp2, five "
    "FMAs.\"\"\"\n"
    "    a = tl.abs(z.to(tl.float32))\n"
    "    t = tl.math.fdiv(1.0, 1.0 + 0.3275911 * a)\n"
    "    p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))\n"
    "    r = 1.0 - p * tl.exp2(-(a * a) * 1.4426950408889634)\n"
    "    return tl.where(z < 0, -r, r)\n"
    "\n"
    "\n";

tdx_status fam_erf_polynomial(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    if (tdx_src_find_def(t->m, "_tdx_erf"))
        return TDX_OK;
    fam_edits e = {0};
    size_t first = t->len;
    for (size_t k = 0; k < t->kernels.len; k++) {
        tdx_src_node *def = t->kernels.items[k];
        tdx_ptrvec calls = {0};
        fam_collect(t, def, TDX_SRC_CALL, &calls);
        int any = 0;
        for (size_t i = 0; i < calls.len; i++) {
            tdx_src_node *c = calls.items[i], *fn = tdx_src_call_func(c);
            if ((!tdx_src_is_dotted(fn, "tl.math.erf") && !tdx_src_is_dotted(fn, "tl.erf")) ||
                tdx_src_call_nargs(c) != 1)
                continue;
            fam_edit(t, &e, fn->start, fn->end, "_tdx_erf");
            any = 1;
        }
        /* the helper goes above the first decorated kernel that calls erf */
        const tdx_src_node *d = tdx_src_next(def, TDX_SRC_R_DECORATOR, NULL);
        size_t at = fam_line_start(t, d ? d->start : def->start);
        if (any && at > 0 && at < first)
            first = at;
    }
    if (first == t->len)
        return TDX_OK;
    fam_edit(t, &e, first, first, helper);
    return fam_emit(t, &e, emit, ud, "erf-polynomial",
                    "tl.math.erf -> _tdx_erf, Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7): one reciprocal, "
                    "one exp2 and five FMAs instead of libdevice's erff");
}
