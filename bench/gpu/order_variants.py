"""On the GPU machine: four source changes, each on a task the suite leaves
2-5 % behind torch.compile, timed before a rewrite family is written for it.

- attention_causal_fp16: its kept kernel (peel-masks, retune, exp2, retune),
  and the same with the query blocks taken heaviest first (pid_m counted
  down: the blocks on the diagonal's far end walk the most keys; launched
  last, they leave a tail of long programs on a few SMs).
- matvec_fp16: its kept kernel (defer-reduction), and R rows a program
  (R = 2, 4, 8) sharing one load of each block of x.
- row_argmax: the task, and its running arg-max kept per lane (value and
  first index of the lane's best) with one reduction after the loop.
- col_max_fp16: its kept kernel, and its per-lane maxima kept in fp16 (the
  maximum of fp16 values is exact in fp16: no conversion a element; the
  kept loop's 107 sm_90 SASS instructions a step become 59).

Each row's kernel is compared with the task's output at the bench shape and
timed with triton.testing.do_bench (median ms), beside torch.compile of the
task's torch_impl.

    TDX=build/tritondx python3 bench/gpu/order_variants.py [TASK ...]
    TRITON_INTERPRET=1 TDX=build/tritondx python3 bench/gpu/order_variants.py --check
        # here: every variant through the interpreter at the check shapes
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import (ROOT, beside_torch, chain, check_variant, compile_header, load, sub,  # noqa: E402
                          time_variants)

KEPT = {
    "attention_causal_fp16": ("peel-masks", ("retune", 1), "exp2", ("retune", 2)),
    "matvec_fp16": ("defer-reduction",),
    "row_argmax": (),
    "col_max_fp16": ("split-reduction", "defer-reduction", "retune"),
}


def task_text(task):
    with open(os.path.join(ROOT, "bench", "tasks", task + ".py")) as f:
        return f.read()


def kept_text(task):
    steps = KEPT[task]
    return chain(os.path.join(ROOT, "bench", "tasks", task + ".py"), *steps) if steps else task_text(task)


def matvec_rows(t, r):
    """The deferred matvec kernel with r rows a program: a [r, BLOCK] tile of
    A against one [BLOCK] block of x."""
    t = sub(t, "    row = tl.program_id(0)\n",
            f"    row = tl.program_id(0) * {r} + tl.arange(0, {r})\n    live = row < M\n")
    t = sub(t, "def matvec_kernel(a_ptr, x_ptr, y_ptr, K, BLOCK: tl.constexpr):",
            "def matvec_kernel(a_ptr, x_ptr, y_ptr, K, M, BLOCK: tl.constexpr):")
    t = sub(t, "_tdx_r0 = tl.zeros([BLOCK], dtype=tl.float32)", f"_tdx_r0 = tl.zeros([{r}, BLOCK], dtype=tl.float32)")
    t = sub(t, "a = tl.load(a_ptr + row * K + offs, mask=mask, other=0.0).to(tl.float32)",
            "a = tl.load(a_ptr + row[:, None] * K + offs[None, :], mask=live[:, None] & mask[None, :], "
            "other=0.0).to(tl.float32)")
    t = sub(t, "_tdx_r0 += a * x", "_tdx_r0 += a * x[None, :]")
    t = sub(t, "acc += tl.sum(_tdx_r0, axis=0)", "acc += tl.sum(_tdx_r0, axis=1)")
    t = sub(t, "acc = 0.0", f"acc = tl.zeros([{r}], dtype=tl.float32)")
    t = sub(t, "tl.store(y_ptr + row, acc.to(y_ptr.dtype.element_ty))",
            "tl.store(y_ptr + row, acc.to(y_ptr.dtype.element_ty), mask=live)")
    return sub(t, "matvec_kernel[(M,)](a, x, y, K, BLOCK=1024)",
               f"matvec_kernel[(triton.cdiv(M, {r}),)](a, x, y, K, M, BLOCK=1024)")


ARGMAX_DEFERRED = '''    row = tl.program_id(0)
    _tdx_v = tl.full([BLOCK], -float("inf"), tl.float32)
    _tdx_i = tl.full([BLOCK], 2147483647, tl.int32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
        _tdx_t = x > _tdx_v
        _tdx_i = tl.where(_tdx_t, offs, _tdx_i)
        _tdx_v = tl.where(_tdx_t, x, _tdx_v)
    best = tl.max(_tdx_v, axis=0)
    best_idx = tl.min(tl.where(_tdx_v == best, _tdx_i, 2147483647), axis=0)
    best_idx = tl.where(best_idx == 2147483647, 0, best_idx)
    tl.store(y_ptr + row, best_idx.to(tl.int64))
'''


def argmax_deferred(t):
    start = t.index("    row = tl.program_id(0)\n")
    end = t.index("    tl.store(y_ptr + row, best_idx.to(tl.int64))\n") + len(
        "    tl.store(y_ptr + row, best_idx.to(tl.int64))\n")
    return t[:start] + ARGMAX_DEFERRED + t[end:]


def variants_of(task, t):
    if task == "attention_causal_fp16":
        heavy = sub(t, "    pid_m = tl.program_id(0)\n", "    pid_m = tl.num_programs(0) - 1 - tl.program_id(0)\n")
        return [("query blocks heaviest first", heavy),
                ("heaviest first, BLOCK_N 128",
                 sub(heavy, "BLOCK_N=64", "BLOCK_N=128"))]
    if task == "matvec_fp16":
        return [(f"{r} rows a program", matvec_rows(t, r)) for r in (2, 4, 8)] + \
               [("4 rows a program, 8 warps", sub(matvec_rows(t, 4), "BLOCK=1024)", "BLOCK=1024, num_warps=8)")),
                ("8 rows a program, BLOCK 512", sub(matvec_rows(t, 8), "BLOCK=1024)", "BLOCK=512)"))]
    if task == "row_argmax":
        d = argmax_deferred(t)
        return [("arg-max kept per lane", d),
                ("per lane, BLOCK 2048, 8 warps", sub(d, "BLOCK=1024)", "BLOCK=2048, num_warps=8)")),
                ("per lane, BLOCK 512", sub(d, "BLOCK=1024)", "BLOCK=512)"))]
    if task == "col_max_fp16":
        # the kept chain keeps the lanes in fp16 since defer-reduction's narrowing: the fp32 lanes are the
        # kernel as kept before it
        narrow = "tl.full([BLOCK_M, BLOCK_N], float(\"-inf\"), tl.float32).to(x_ptr.dtype.element_ty)" in t
        if narrow:
            w = sub(t, "    tl.static_assert(x_ptr.dtype.element_ty.is_floating())\n", "")
            w = sub(w, ".to(x_ptr.dtype.element_ty)\n", "\n")
            w = sub(w, "_tdx_r0 = tl.maximum(_tdx_r0, x)", "_tdx_r0 = tl.maximum(_tdx_r0, x.to(tl.float32))")
            w = sub(w, "tl.max(_tdx_r0, axis=0).to(tl.float32)", "tl.max(_tdx_r0, axis=0)")
            return [("per-lane maxima in fp32 (as kept before)", w),
                    ("in fp16, BLOCK_M 64", sub(t, "BLOCK_M=32", "BLOCK_M=64"))]
        h = sub(t, '_tdx_r0 = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float32)',
                '_tdx_r0 = tl.full([BLOCK_M, BLOCK_N], float("-inf"), x_ptr.dtype.element_ty)')
        h = sub(h, "_tdx_r0 = tl.maximum(_tdx_r0, x.to(tl.float32))", "_tdx_r0 = tl.maximum(_tdx_r0, x)")
        h = sub(h, "tl.max(_tdx_r0, axis=0)", "tl.max(_tdx_r0.to(tl.float32), axis=0)")
        return [("per-lane maxima in fp16", h),
                ("in fp16, BLOCK_M 64", sub(h, "BLOCK_M=32", "BLOCK_M=64"))]
    raise SystemExit(f"no variants for {task}")


def check(tasks):
    import torch
    bad = 0
    for task in tasks:
        mod = load(task_text(task), task + "_task")
        tol = getattr(mod, "TOLERANCE", 1e-2)
        for i, (name, vt) in enumerate(variants_of(task, kept_text(task))):
            def same(got, ins, mod=mod, tol=tol):
                want = mod.launch(*ins)
                if want.dtype == torch.int64:
                    return torch.equal(got, want)
                return torch.allclose(got.float(), want.float(), atol=tol, rtol=tol)
            bad += check_variant(f"{task}: {name}", vt, f"{task}_c{i}", mod, same)
    if "row_argmax" in tasks:  # ties: equal values, the row's max twice in different blocks and lanes
        import torch as th
        d = load(argmax_deferred(task_text("row_argmax")), "argmax_ties")
        x = th.zeros(4, 3000)
        x[1, 5] = x[1, 2000] = 3.0
        x[2, 1030] = x[2, 6] = 2.0
        x[3, :] = -float("inf")
        got = d.launch(x)
        ok = th.equal(got, th.argmax(x, dim=1))
        print(f"row_argmax: ties and -inf rows: {'ok' if ok else got.tolist()}")
        bad += not ok
    return 1 if bad else 0


def main():
    if sys.argv[1:2] == ["--check"]:
        raise SystemExit(check(sys.argv[2:] or list(KEPT)))
    import torch
    compile_header()
    for task in sys.argv[1:] or list(KEPT):
        text = kept_text(task)
        mod, ins, want, kept_ms, compile_ms = beside_torch(task, text, "as kept (" + "+".join(
            s if isinstance(s, str) else f"{s[0]}#{s[1]}" for s in KEPT[task]) + ")" if KEPT[task] else "the task")
        time_variants(task, variants_of(task, text), ins, want, kept_ms, compile_ms)
        del ins, want
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
