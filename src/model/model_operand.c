/* tl.dot operands and the layout their tensors have at launch.
 *
 * Hopper's wgmma reads 16-bit operands from shared memory in either order,
 * but 32-bit (tf32) operands only K-major: the K axis must be the one that
 * is contiguous in shared memory. When the tensor in global memory is
 * contiguous along the other axis (B of A @ B, row-major), the copy into
 * shared memory transposes it and moves one element per cp.async instead of
 * four. From the source that shows as an operand whose tile offsets scale
 * the K axis by X.stride(i) and the other axis by X.stride(j), i < j, for a
 * tensor X that make_inputs builds contiguous. */
#include <string.h>

#include "model/model_int.h"

int tdx_km_input_bytes(const tdx_km_file *f)
{
    if (!f || !f->mod || !f->mod->root)
        return 0;
    const tdx_src_node *root = f->mod->root;
    for (tdx_src_node *d = tdx_src_kid(root, TDX_SRC_R_BODY); d; d = tdx_src_next(root, TDX_SRC_R_BODY, d)) {
        if (d->kind != TDX_SRC_FUNCDEF || !d->name || strcmp(d->name, "make_inputs") != 0)
            continue;
        for (tdx_src_node *p = tdx_src_next(d, TDX_SRC_R_PARAM, NULL); p; p = tdx_src_next(d, TDX_SRC_R_PARAM, p)) {
            tdx_src_node *v = p->name && strcmp(p->name, "dtype") == 0 ? tdx_src_kid(p, TDX_SRC_R_DEFAULT) : NULL;
            if (!v)
                continue;
            if (tdx_src_is_dotted(v, "torch.float16") || tdx_src_is_dotted(v, "torch.bfloat16") ||
                tdx_src_is_dotted(v, "torch.half"))
                return 2;
            if (tdx_src_is_dotted(v, "torch.float32") || tdx_src_is_dotted(v, "torch.float"))
                return 4;
        }
    }
    return 0;
}

/* The tl.load access whose value the dot operand `arg` is: the operand
 * itself, or the value its name is bound to last before the dot. */
static const tdx_km_access *operand_load(const tdx_km_kernel *k, const tdx_km_op *dot, const tdx_src_node *arg)
{
    const tdx_src_node *v = arg;
    if (arg && arg->kind == TDX_SRC_NAME && arg->name) {
        int found = 0;
        v = tdx_km_binding_of(k->def, arg->name, dot->call, &found);
        if (!found)
            return NULL;
    }
    if (!v || v->kind != TDX_SRC_CALL)
        return NULL;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->kind == TDX_KM_LOAD && a->call == v && !a->helper)
            return a;
    }
    return NULL;
}

/* `X.stride(d)` with X the NAME name and d a literal: d, else -1. */
static long long stride_dim(const tdx_km_file *f, const tdx_src_node *e, const char *name)
{
    if (!e || e->kind != TDX_SRC_CALL || tdx_src_call_nargs(e) != 1)
        return -1;
    const tdx_src_node *fn = tdx_src_call_func(e);
    if (!fn || fn->kind != TDX_SRC_ATTRIBUTE || !fn->name || strcmp(fn->name, "stride") != 0)
        return -1;
    const tdx_src_node *obj = tdx_src_kid(fn, TDX_SRC_R_VALUE);
    long long d = -1;
    if (!obj || obj->kind != TDX_SRC_NAME || !obj->name || strcmp(obj->name, name) != 0 ||
        tdx_src_int_value(f->mod, tdx_src_call_arg(e, 0), &d) != TDX_OK || d < 0 || d > 8)
        return -1;
    return d;
}

/* The launch argument bound to kernel parameter `param`, or NULL. */
static const tdx_src_node *arg_for(const tdx_km_kernel *k, const tdx_km_launch *l, const char *param)
{
    const tdx_km_param *p = param ? tdx_km_param_find(k, param) : NULL;
    return p && (size_t)p->index < l->nargs ? l->args[p->index] : NULL;
}

/* Non-zero when tensor `name` reaches launch l as make_inputs builds it
 * (contiguous): not bound in the launching function before l, or bound to
 * `name.contiguous()` (of any name). A tensor re-laid out there (x.t(),
 * movedim, a copy) is left alone: its strides are not known here. */
static int contiguous_at(const tdx_km_launch *l, const char *name)
{
    int found = 0;
    const tdx_src_node *v = tdx_km_binding_of(l->scope, name, l->call, &found);
    if (!found)
        return 1;
    if (!v || v->kind != TDX_SRC_CALL || tdx_src_call_nargs(v) != 0)
        return 0;
    const tdx_src_node *fn = tdx_src_call_func(v);
    return fn && fn->kind == TDX_SRC_ATTRIBUTE && fn->name && strcmp(fn->name, "contiguous") == 0;
}

static int stored_to(const tdx_km_kernel *k, const char *base)
{
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        if (a->kind != TDX_KM_LOAD && a->addr.base && strcmp(a->addr.base, base) == 0)
            return 1;
    }
    return 0;
}

size_t tdx_km_mn_major_operands(const tdx_km_file *f, const tdx_km_kernel *k, tdx_km_mn_operand *out, size_t max)
{
    size_t n = 0;
    if (!f || !k || tdx_km_input_bytes(f) != 4)
        return 0;
    for (size_t i = 0; i < k->ops.len && n < max; i++) {
        const tdx_km_op *dot = k->ops.items[i];
        if (dot->kind != TDX_KM_OP_DOT || dot->operands_half || dot->allow_tf32 == 0 ||
            (dot->input_precision && strcmp(dot->input_precision, "ieee") == 0))
            continue;
        for (int which = 0; which < 2 && n < max; which++) {
            const tdx_km_access *ld = operand_load(k, dot, tdx_src_call_arg(dot->call, (size_t)which));
            if (!ld || !ld->addr.base || ld->addr.rank != 2 || (ld->addr.flags & TDX_KM_V_BLOCKPTR) ||
                stored_to(k, ld->addr.base))
                continue;
            /* axes from the right: A (M x K) has K last, B (K x N) has it first */
            const tdx_km_axis *ka = &ld->addr.axis[which == 0 ? 0 : 1];
            const tdx_km_axis *oa = &ld->addr.axis[which == 0 ? 1 : 0];
            if (ka->mult != TDX_KM_MULT_PARAM || oa->mult != TDX_KM_MULT_PARAM || !ka->mult_param ||
                !oa->mult_param)
                continue;
            for (size_t j = 0; j < k->launches.len; j++) {
                const tdx_km_launch *l = k->launches.items[j];
                const tdx_src_node *x = arg_for(k, l, ld->addr.base);
                if (!x || x->kind != TDX_SRC_NAME || !x->name || !contiguous_at(l, x->name))
                    continue;
                long long kd = stride_dim(f, arg_for(k, l, ka->mult_param), x->name);
                long long od = stride_dim(f, arg_for(k, l, oa->mult_param), x->name);
                if (kd < 0 || od < 0 || kd >= od)
                    continue;
                out[n].dot = dot;
                out[n].which = which;
                out[n].load = ld;
                out[n].launch = l;
                out[n].tensor = x;
                out[n].k_dim = kd;
                out[n].other_dim = od;
                n++;
                break;
            }
        }
    }
    return n;
}
