/* The pattern class of a kernel, from the facts of its model. The order of
 * the tests is the order of specificity: attention before matmul (it has
 * two), convolution and batched matmul before matmul, scans and atomics
 * before plain reductions, reductions before element-wise. */
#include <string.h>

#include "triage/triage_int.h"

// How many ops of kind (and name, when given) the kernel has.
static int count_ops(const tdx_km_kernel *k, tdx_km_op_kind kind, const char *name)
{
    int n = 0;
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind == kind && (!name || strcmp(op->name, name) == 0))
            n++;
    }
    return n;
}

int tdx_tri_has_dot(const tdx_km_kernel *k) { return count_ops(k, TDX_KM_OP_DOT, NULL) > 0; }

int tdx_tri_naxes(const tdx_km_val *v)
{
    int n = 0;
    for (int i = 0; i < TDX_KM_MAXRANK; i++)
        if (v->axis[i].mult != TDX_KM_MULT_NONE)
            n++;
    return n;
}

// Row vs column: is the reduced axis contiguous in memory (+1), strided
// (-1), or unknown (0)?
static int reduced_axis_kind(const tdx_km_op *op)
{
    const tdx_km_val *in = &op->input;
    int row = 0, col = 0;
    for (int r = 0; r < TDX_KM_MAXRANK; r++) {
        if (op->axis >= 0 && in->rank > 0) {
            int ax = op->axis < in->rank ? op->axis : in->rank - 1;
            if (r != in->rank - 1 - ax)
                continue;
        }
        switch (in->axis[r].mult) {
        case TDX_KM_MULT_UNIT: row++; break;
        case TDX_KM_MULT_NONE: break;
        default: col++; break;
        }
    }
    return col && !row ? -1 : row ? 1 : 0;
}

// The pattern class of k, with a confidence and a short reason.
tdx_tri_class tdx_tri_classify(const tdx_km_kernel *k)
{
    tdx_tri_class c = {"unknown", 0.3, "no loads or stores found"};
    int ndot = count_ops(k, TDX_KM_OP_DOT, NULL);
    int nexp = count_ops(k, TDX_KM_OP_MATH, "exp") + count_ops(k, TDX_KM_OP_MATH, "exp2");
    int nscan = count_ops(k, TDX_KM_OP_SCAN, NULL);
    int nreduce = 0, manual = 0, rows = 0, cols = 0;
    for (size_t i = 0; i < k->ops.len; i++) {
        const tdx_km_op *op = k->ops.items[i];
        if (op->kind != TDX_KM_OP_REDUCE)
            continue;
        nreduce++;
        if (strcmp(op->name, "sum") == 0 && (op->input.flags & TDX_KM_V_PROD3))
            manual = 1;
        int kind = reduced_axis_kind(op);
        rows += kind > 0;
        cols += kind < 0;
    }
    int window = 0, atomic = 0, indirect = 0, norm = 0, epilogue = 0, moddiv = 0;
    int store_axes = 0, naccess = 0;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        naccess++;
        window |= (a->addr.flags & TDX_KM_V_WINDOW) != 0;
        atomic |= a->kind == TDX_KM_ATOMIC;
        indirect |= (a->addr.flags & TDX_KM_V_DATA) != 0;
        if (a->kind != TDX_KM_LOAD) {
            int n = tdx_tri_naxes(&a->addr);
            if ((a->addr.flags & TDX_KM_V_BLOCKPTR) && a->addr.rank > n)
                n = a->addr.rank;
            if (n > store_axes)
                store_axes = n;
            if ((a->value.flags & TDX_KM_V_REDUCED) && (a->value.flags & TDX_KM_V_DATA) &&
                tdx_tri_naxes(&a->addr) > 0)
                norm = 1;
            if ((a->value.flags & TDX_KM_V_DOT) && (a->value.flags & TDX_KM_V_EPI))
                epilogue = 1;
        }
        for (int r = 0; r < TDX_KM_MAXRANK; r++)
            if (a->kind == TDX_KM_LOAD && a->addr.axis[r].moddiv)
                moddiv = 1;
    }
    int lower_rank_load = 0;
    for (size_t i = 0; i < k->accesses.len; i++) {
        const tdx_km_access *a = k->accesses.items[i];
        int n = tdx_tri_naxes(&a->addr);
        if (a->kind == TDX_KM_LOAD && n > 0 && n < store_axes && !(a->addr.flags & TDX_KM_V_DATA))
            lower_rank_load = 1;
    }
    int batched = ndot && (k->pid_addr & ~k->pid_tiled) != 0;
    if (naccess == 0)
        return c;
    if (ndot >= 2 && nexp > 0)
        return (tdx_tri_class){"attention", 0.9, "two tl.dot calls around an exponential"};
    if (window)
        return (tdx_tri_class){"convolution", ndot ? 0.85 : 0.75,
                               "loads slide a tile by a filter-loop index"};
    if (batched)
        return (tdx_tri_class){"batched-matmul", 0.85,
                               "tl.dot with a program_id axis that only offsets the base pointers"};
    if (ndot)
        return epilogue ? (tdx_tri_class){"matmul-epilogue", 0.85,
                                          "tl.dot whose result is transformed before the store"}
                        : (tdx_tri_class){"matmul", 0.9, "tl.dot over a K loop"};
    if (manual)
        return (tdx_tri_class){"matmul", 0.7, "3-D broadcast product reduced over K"};
    if (nscan)
        return (tdx_tri_class){"scan", 0.9, "tl.cumsum / tl.associative_scan"};
    if (atomic)
        return (tdx_tri_class){"atomic-reduction", 0.8, "results combined with atomics"};
    if (indirect)
        return (tdx_tri_class){"gather-scatter", 0.8, "addresses computed from loaded indices"};
    if (nreduce && norm)
        return (tdx_tri_class){"softmax-norm", 0.85,
                               "a reduction that rescales the same tile before storing it"};
    if (nreduce)
        return cols > 0 && rows == 0
                   ? (tdx_tri_class){"column-reduction", 0.8, "reduces along a strided axis"}
                   : (tdx_tri_class){"row-reduction", rows ? 0.85 : 0.6,
                                     "reduces along the contiguous axis"};
    if (tdx_tri_serial_loop(k) && store_axes <= 1)
        return (tdx_tri_class){"column-reduction", 0.7,
                               "accumulates the loaded tile across a loop, one slice per iteration"};
    if (lower_rank_load || moddiv)
        return (tdx_tri_class){"broadcast", 0.8,
                               "a lower-rank operand is broadcast across the tile"};
    return (tdx_tri_class){"elementwise", store_axes ? 0.85 : 0.5,
                           "loads and stores of the same tile, no reduction"};
}
