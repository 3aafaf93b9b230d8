/* The built-in rewrite families. Each rests on a compiler or hardware fact
 * named in its comment; the loop proves each candidate correct and faster. */
#include "rewrite/families.h"

#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "rewrite/fam_common.h"

/* Loops in a kernel whose body loads from global memory. */
static int loop_loads(fam_task *t, tdx_src_node *loop)
{
    tdx_ptrvec calls = {0};
    fam_collect(t, loop, TDX_SRC_CALL, &calls);
    for (size_t i = 0; i < calls.len; i++)
        if (tdx_src_is_dotted(tdx_src_call_func(calls.items[i]), "tl.load"))
            return 1;
    return 0;
}

/* pipelining: `for ... in range(...)` over loads becomes tl.range(...,
 * num_stages=N). The pipeliner only pipelines loads that feed a dot unless
 * the loop carries tt.num_stages, which tl.range(num_stages=) sets
 * (lib/Dialect/TritonGPU/Transforms/Pipeliner/AssignLatencies.cpp). */
static tdx_status fam_pipelining(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    static const char *const stages[] = {"3", "2", "4"};
    for (size_t s = 0; s < sizeof stages / sizeof stages[0] && !st; s++) {
        fam_edits e = {0};
        for (size_t k = 0; k < t->kernels.len; k++) {
            tdx_ptrvec loops = {0};
            fam_collect(t, t->kernels.items[k], TDX_SRC_FOR, &loops);
            for (size_t i = 0; i < loops.len; i++) {
                tdx_src_node *f = loops.items[i];
                tdx_src_node *it = tdx_src_kid(f, TDX_SRC_R_ITER);
                if (!it || it->kind != TDX_SRC_CALL || !loop_loads(t, f))
                    continue;
                tdx_src_node *fn = tdx_src_call_func(it);
                if (tdx_src_is_dotted(fn, "range"))
                    fam_edit(t, &e, fn->start, fn->end, "tl.range");
                else if (!tdx_src_is_dotted(fn, "tl.range"))
                    continue; /* static_range unrolls: nothing to pipeline */
                fam_set_kwarg(t, &e, it, "num_stages", stages[s]);
            }
        }
        char sum[128];
        snprintf(sum, sizeof sum, "kernel loops over loads pipelined with num_stages=%s", stages[s]);
        st = fam_emit(t, &e, emit, ud, "pipelining", sum);
    }
    return st;
}

/* The task's own TOLERANCE when it is one number at module level, else -1
 * (absent: the check's default for a tf32 output, 1e-3; a dict: per dtype). */
static double task_tolerance(fam_task *t)
{
    const tdx_km_file *f = fam_model(t);
    double v = -1;
    for (size_t i = 0; f && i < f->nglobals; i++) {
        const tdx_src_node *val = f->global_values[i];
        if (strcmp(f->global_names[i], "TOLERANCE") == 0)
            return val && val->kind == TDX_SRC_NUMBER && tdx_src_number_value(t->m, val, &v) == TDX_OK ? v : -1;
    }
    return -1;
}

/* The matrix units read an fp32 operand's top 19 bits: a tf32 dot
 * truncates each operand toward zero, and the error does not average out
 * (every product is a little smaller in magnitude). conv1d's and conv2d's
 * fp32 outputs through plain tf32 measured 1.3e-3 and 1.1e-3 against the
 * default tolerance 1e-3 (bench/RESULTS.md); with the operands rounded to
 * the nearest tf32 first (cvt.rna.tf32.f32's rounding, ties away from
 * zero) the same cases are 3.7e-4 and 6.9e-4 at most, float64 products of
 * the rounded operands against the reference. A task whose TOLERANCE
 * allows TF32_PLAIN_TOLERANCE gets the plain dot, nothing added. */
#define TF32_PLAIN_TOLERANCE 2e-3
/* Below the default tolerance, rounded tf32 (3e-4 to 7e-4 on those cases)
 * is unlikely to pass: tf32x3 comes first there. */
#define TF32_ROUNDED_TOLERANCE 1e-3

/* Rounds x to the nearest tf32 value kept in fp32 bits: add half of the
 * 13 dropped bits' unit to the magnitude, clear them. An exponent carry is
 * the next binade (the maximum becomes inf, as cvt.rna does); inf stays inf.
 * Operands of another dtype pass through. */
static const char tf32_helper[] =
    "@triton.jit\n"
    "def _tdx_tf32(x):\n"
    "    \"\"\"x rounded to the nearest tf32 value (ties away from zero), kept in fp32: the matrix units "
    "read an fp32 operand's top 19 bits, truncating it.\"\"\"\n"
    "    if x.dtype == tl.float32:\n"
    "        x = ((x.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)\n"
    "    return x\n"
    "\n"
    "\n";

/* Wrap the two operands of dot call c in _tdx_tf32(...); 0 when one of
 * them is not found. */
static int round_operands(fam_task *t, fam_edits *r, tdx_src_node *c)
{
    tdx_src_node *a = tdx_src_call_nargs(c) > 0 ? tdx_src_call_arg(c, 0) : tdx_src_call_kwarg(c, "input");
    tdx_src_node *b = tdx_src_call_nargs(c) > 1 ? tdx_src_call_arg(c, 1) : tdx_src_call_kwarg(c, "other");
    if (!a || !b)
        return 0;
    fam_edit(t, r, a->start, a->start, "_tdx_tf32(");
    fam_edit(t, r, a->end, a->end, ")");
    fam_edit(t, r, b->start, b->start, "_tdx_tf32(");
    fam_edit(t, r, b->end, b->end, ")");
    return 1;
}

/* tensor-cores: a dot forced to IEEE fp32 runs on FMA units; tf32 (the
 * default for fp32 inputs) runs on the matrix units
 * (lib/Dialect/TritonGPU/Transforms/AccelerateMatmul.cpp). The other
 * candidate asks for "tf32x3": each operand split into a tf32 high part and
 * the rest, three tf32 products summed (the low parts' product dropped), so
 * about fp32's accuracy on the matrix units (Triton's F32DotTC pass writes
 * the three dots). Unless the task's TOLERANCE allows plain tf32
 * (TF32_PLAIN_TOLERANCE), the tf32 candidate rounds its operands first
 * (_tdx_tf32 above the first kernel changed); it comes first unless the
 * task asks for less than TF32_ROUNDED_TOLERANCE. */
static tdx_status fam_tensor_cores(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    fam_edits e = {0}, wraps = {0}, x3 = {0}; /* plain tf32, the rounding added to it, tf32x3 */
    double tol = task_tolerance(t); /* -1: the check's default, 1e-3 */
    int round = tol < TF32_PLAIN_TOLERANCE, rounded_all = 1;
    int x3_first = tol >= 0 && tol < TF32_ROUNDED_TOLERANCE;
    size_t first = t->len; /* where the helper goes: above the first kernel changed */
    for (size_t k = 0; k < t->kernels.len; k++) {
        tdx_src_node *def = t->kernels.items[k];
        tdx_ptrvec calls = {0};
        fam_collect(t, def, TDX_SRC_CALL, &calls);
        size_t before = e.n;
        for (size_t i = 0; i < calls.len; i++) {
            tdx_src_node *c = calls.items[i];
            if (!tdx_src_is_dotted(tdx_src_call_func(c), "tl.dot"))
                continue;
            size_t was = e.n;
            tdx_src_node *p = tdx_src_call_kwarg(c, "input_precision");
            char *pv = p ? tdx_src_string_value(t->m, p, &t->arena) : NULL;
            if (pv && strcmp(pv, "ieee") == 0) {
                fam_edit(t, &e, p->start, p->end, "\"tf32\"");
                fam_edit(t, &x3, p->start, p->end, "\"tf32x3\"");
            }
            for (tdx_src_node *kw = tdx_src_next(c, TDX_SRC_R_KEYWORD, NULL); kw;
                 kw = tdx_src_next(c, TDX_SRC_R_KEYWORD, kw)) {
                tdx_src_node *a = kw->name && strcmp(kw->name, "allow_tf32") == 0 ? tdx_src_kid(kw, TDX_SRC_R_VALUE)
                                                                                 : NULL;
                if (!a || a->kind != TDX_SRC_CONST || !a->name || strcmp(a->name, "False") != 0)
                    continue;
                fam_edit(t, &e, a->start, a->end, "True");
                /* the two keywords exclude each other: the whole keyword is replaced */
                fam_edit(t, &x3, kw->start, kw->end, "input_precision=\"tf32x3\"");
            }
            if (round && e.n > was && !round_operands(t, &wraps, c))
                rounded_all = 0; /* then the plain candidate stands */
        }
        const tdx_src_node *d = tdx_src_next(def, TDX_SRC_R_DECORATOR, NULL);
        size_t at = fam_line_start(t, d ? d->start : def->start);
        if (e.n > before && at < first)
            first = at;
    }
    round = round && rounded_all && e.n;
    fam_edits r = e; /* rounded: the plain candidate, its operands wrapped, the helper */
    for (size_t i = 0; round && i < wraps.n; i++)
        fam_edit(t, &r, wraps.items[i].start, wraps.items[i].end, wraps.items[i].text);
    if (round && !tdx_src_find_def(t->m, "_tdx_tf32"))
        fam_edit(t, &r, first, first, tf32_helper);
    static const char *const plain = "tl.dot on tf32 tensor cores instead of IEEE fp32 FMA";
    static const char *const rounded = "tl.dot on tf32 tensor cores instead of IEEE fp32 FMA, each operand rounded "
                                       "to the nearest tf32 first (_tdx_tf32; the matrix units would truncate it)";
    static const char *const three = "tl.dot as three tf32 products on the tensor cores (input_precision=\"tf32x3\", "
                                     "about fp32's accuracy) instead of IEEE fp32 FMA";
    fam_edits *tf32 = round ? &r : &e;
    const char *tf32_sum = round ? rounded : plain;
    st = fam_emit(t, x3_first ? &x3 : tf32, emit, ud, "tensor-cores", x3_first ? three : tf32_sum);
    if (!st)
        st = fam_emit(t, x3_first ? tf32 : &x3, emit, ud, "tensor-cores", x3_first ? tf32_sum : three);
    return st;
}

/* Non-zero when e is `x[:, None]` or `x[None, :]` (a vector broadcast
 * along the other axis). */
static int expanded_vector(const tdx_src_node *e)
{
    const tdx_src_node *ix = e && e->kind == TDX_SRC_SUBSCRIPT ? tdx_src_kid(e, TDX_SRC_R_INDEX) : NULL;
    if (!ix || ix->kind != TDX_SRC_TUPLE || ix->nkids != 2)
        return 0;
    for (int i = 0; i < 2; i++) {
        const tdx_src_node *other = ix->kids[1 - i];
        if (ix->kids[i]->kind == TDX_SRC_SLICE && ix->kids[i]->nkids == 0 && other->kind == TDX_SRC_CONST &&
            other->name && strcmp(other->name, "None") == 0)
            return 1;
    }
    return 0;
}

/* exp2: tl.exp(x) as tl.exp2(x * log2(e)), the form the hardware's ex2
 * instruction computes directly. The softmax's tl.exp(s - m[:, None]) is
 * written tl.exp2(s * log2(e) - m[:, None] * log2(e)): the row's product
 * once per row, and per element one fused multiply-add where (s - m) *
 * log2(e) took a subtraction and a multiply. */
static tdx_status fam_exp2(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    fam_edits e = {0};
    for (size_t k = 0; k < t->kernels.len; k++) {
        tdx_ptrvec calls = {0};
        fam_collect(t, t->kernels.items[k], TDX_SRC_CALL, &calls);
        for (size_t i = 0; i < calls.len; i++) {
            tdx_src_node *c = calls.items[i];
            tdx_src_node *fn = tdx_src_call_func(c);
            if (!tdx_src_is_dotted(fn, "tl.exp") || tdx_src_call_nargs(c) != 1)
                continue;
            tdx_src_node *arg = tdx_src_call_arg(c, 0);
            if (!arg || arg->kind == TDX_SRC_STARRED)
                continue;
            fam_edit(t, &e, fn->start, fn->end, "tl.exp2");
            tdx_src_node *a = tdx_src_kid(arg, TDX_SRC_R_LEFT), *b = tdx_src_kid(arg, TDX_SRC_R_RIGHT);
            if (arg->kind == TDX_SRC_BINOP && arg->op == TDX_OP_MINUS && a && b && expanded_vector(b)) {
                if (!fam_atom(a)) {
                    fam_edit(t, &e, a->start, a->start, "(");
                    fam_edit(t, &e, a->end, a->end, ")");
                }
                fam_edit(t, &e, a->end, a->end, " * 1.4426950408889634");
                fam_edit(t, &e, b->end, b->end, " * 1.4426950408889634");
                continue;
            }
            fam_edit(t, &e, arg->start, arg->start, "(");
            fam_edit(t, &e, arg->end, arg->end, ") * 1.4426950408889634");
        }
    }
    st = fam_emit(t, &e, emit, ud, "exp2", "tl.exp(x) -> tl.exp2(x * log2(e))");
    return st;
}

/* alignment-hints: do_not_specialize turns off the divisibility-by-16
 * specialization of the listed arguments, so AxisInfo cannot prove aligned,
 * contiguous accesses and loads stay scalar (python/triton/runtime/jit.py,
 * lib/Analysis/AxisInfo.cpp). Dropping it restores the specialization. */
static tdx_status fam_alignment(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    fam_edits e = {0};
    for (size_t k = 0; k < t->kernels.len; k++) {
        tdx_src_node *def = t->kernels.items[k];
        for (tdx_src_node *d = tdx_src_next(def, TDX_SRC_R_DECORATOR, NULL); d;
             d = tdx_src_next(def, TDX_SRC_R_DECORATOR, d)) {
            tdx_src_node *v = tdx_src_kid(d, TDX_SRC_R_VALUE);
            if (!v || v->kind != TDX_SRC_CALL)
                continue;
            tdx_src_node *fn = tdx_src_call_func(v);
            char *dn = tdx_src_dotted(fn, &t->arena);
            size_t dl = dn ? strlen(dn) : 0;
            if (!dn || dl < 3 || strcmp(dn + dl - 3, "jit") != 0)
                continue;
            for (tdx_src_node *kw = tdx_src_next(v, TDX_SRC_R_KEYWORD, NULL); kw;
                 kw = tdx_src_next(v, TDX_SRC_R_KEYWORD, kw)) {
                if (!kw->name || (strcmp(kw->name, "do_not_specialize") != 0 &&
                                  strcmp(kw->name, "do_not_specialize_on_alignment") != 0))
                    continue;
                tdx_src_node *val = tdx_src_kid(kw, TDX_SRC_R_VALUE);
                if (val)
                    fam_edit(t, &e, val->start, val->end, "[]");
            }
        }
    }
    st = fam_emit(t, &e, emit, ud, "alignment-hints",
                  "let the JIT specialize arguments on divisibility by 16 again");
    return st;
}

/* remove-launch-passes: `.contiguous()` copies in launch code; a kernel that
 * takes strides can read the tensor as it is. A copy after a re-layout
 * (x.t().contiguous(): a memory order chosen for the kernel) stays. */
static tdx_status fam_launch_passes(fam_task *t, tdx_rw_emit_fn emit, void *ud)
{
    tdx_status st = TDX_OK;
    tdx_src_node *launch = tdx_src_find_def(t->m, "launch");
    fam_edits e = {0};
    if (launch) {
        tdx_ptrvec calls = {0};
        fam_collect(t, launch, TDX_SRC_CALL, &calls);
        for (size_t i = 0; i < calls.len; i++) {
            tdx_src_node *c = calls.items[i];
            tdx_src_node *fn = tdx_src_call_func(c);
            if (!fn || fn->kind != TDX_SRC_ATTRIBUTE || !fn->name ||
                strcmp(fn->name, "contiguous") != 0 || tdx_src_call_nargs(c) != 0)
                continue;
            tdx_src_node *obj = tdx_src_kid(fn, TDX_SRC_R_VALUE);
            if (obj && !tdx_km_is_relayout(obj))
                fam_edit(t, &e, obj->end, c->end, "");
        }
    }
    st = fam_emit(t, &e, emit, ud, "remove-launch-passes", "drop .contiguous() copies in launch");
    return st;
}

static const tdx_rw_family families[] = {
    {"retune", "a kernel launch with block-size constexprs, num_warps or num_stages", fam_retune},
    {"pipelining", "a kernel loop over tl.load", fam_pipelining},
    {"tensor-cores", "tl.dot with input_precision=\"ieee\" or allow_tf32=False", fam_tensor_cores},
    {"exp2", "tl.exp in a kernel", fam_exp2},
    {"erf-polynomial", "tl.math.erf or tl.erf in a kernel", fam_erf_polynomial},
    {"alignment-hints", "@triton.jit(do_not_specialize=[...])", fam_alignment},
    {"remove-launch-passes", ".contiguous() in launch", fam_launch_passes},
    {"grouped-order", "a tl.dot kernel on a 2-D grid of cdiv(M, BLOCK_M) x cdiv(N, BLOCK_N) tiles", fam_grouped},
    {"single-pass-reduction", "consecutive loops over one row that load the same pointer", fam_single_pass},
    {"reverse-pass", "a loop over the range an earlier loop read through the same pointer, its iterations independent", fam_reverse_pass},
    {"heavy-first", "a tl.program_id(A) bound once, with a top-level loop whose trip count grows with it", fam_heavy_first},
    {"split-k", "a tl.dot loop over K whose result is stored as it is (or cast)", fam_split_k},
    {"split-reduction", "a loop that sums, maximises or minimises loaded values into one accumulator stored once after it", fam_split_reduction},
    {"defer-reduction", "a loop statement that adds (or maximises, minimises) tl.sum / tl.max / tl.min of the iteration's whole tile into a float scalar, or of one axis of a 2-D tile into a float tile; a running arg-max or arg-min of 1-D tiles", fam_defer_reduction},
    {"peel-masks", "a loop over blocks of offsets start + tl.arange(0, STEP) whose masks compare them with loop-invariant bounds", fam_peel_masks},
    {"relax-atomics", "tl.atomic_add / max / min / and / or / xor statements without sem= in a kernel with no cas, xchg, used atomic result, or load through the pointer they write", fam_relax_atomics},
    {"fold-programs", "one tl.program_id(0) on a 1-D grid, straight-line element-wise code (and row reductions) on 1-D tiles", fam_fold_programs},
    {"vectorize-loop", "a kernel loop loading one element, or one row of a 1-D tile, per iteration", fam_vectorize_loop},
    {"persistent-grid", "a launch on a 1-D grid (or a 2-D grid of a tl.dot kernel) of a kernel with no early return", fam_persistent_grid},
    {"coalesce", "a program owning one index of the contiguous axis, walking a block of the strided one", fam_coalesce},
    {"fuse-launches", "consecutive launches on one 1-D grid, the second reading element-wise a tensor only the first writes", fam_fuse_launches},
    {"block-outputs", "a tl.program_id(1 or 2) that picks scalar loads and the output, beside loop tiles that do not depend on it", fam_block_outputs},
    {"operand-layout", "an fp32 tl.dot operand read through X.stride(i) for K and X.stride(j), j > i, of a tensor passed by name", fam_operand_layout},
    {"dot-accumulate", "a loop over a reduction index adding the outer product of an [R, 1] column and a 1-D row, both loaded with the index, into an fp32 R x BLOCK accumulator", fam_dot_accumulate},
    {"tensor-descriptors", "a tl.dot loop whose operands are loaded as P + R[:, None] * S0 + C[None, :] * S1 under the mask R[:, None] < B0 & C[None, :] < B1, R and C offsets plus tl.arange", fam_tensor_descriptors},
    {"hoist-scale", "tl.dot(X, Y) * c in a loop, c loop-invariant and X (or Y) a name bound once before the loop", fam_hoist_scale},
    {"row-grid", "a flat 1-D kernel whose elements find their row as (offs // D) and load per-row values P + row with it", fam_row_grid},
    {"autotune", "a kernel launch with block-size constexprs whose grid reads them only as literals or names", fam_autotune},
};

const tdx_rw_family *tdx_rw_families(size_t *n)
{
    *n = sizeof families / sizeof families[0];
    return families;
}

const tdx_rw_family *tdx_rw_family_find(const char *name)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].name, name) == 0)
            return &families[i];
    return NULL;
}

tdx_status tdx_rw_apply_family(const char *name, const char *path, const char *src, size_t len,
                               tdx_rw_emit_fn emit, void *ud, tdx_diags *diags)
{
    const tdx_rw_family *f = tdx_rw_family_find(name);
    if (!f)
        return TDX_ERR_NOTFOUND;
    fam_task t;
    tdx_status st = fam_open(&t, path, src, len, diags);
    if (!st)
        st = f->apply(&t, emit, ud);
    fam_close(&t);
    return st;
}
