"""On the GPU machine: a kept kernel's tile, warps, split and load hint, a
few settings at a time, against torch.compile in ONE interleaved timing.

The kept kernels are the suite's finals behind torch.compile when timed
beside it (bench/results/2026-12-06-s27-kept/; the H100 run of the
twenty-seventh session: col_max_fp16 0.1951 ms against 0.1730, col_mean_bf16
0.1808 against 0.1723). Inductor's candidates for col_max (read from its
reduction heuristics for a 16384 x 16384 fp16 amax over dim 0) are XBLOCK x
R0_BLOCK = 1x2048 w16, 16x32 w4, 64x64 w16, 8x512 w16, 64x4 w8 (XBLOCK
columns, R0_BLOCK rows a step) with evict_first on the load, one kernel, no
split. Each variant here is the kept file with its launch (and, for
col_mean, the split and the direct store) edited; its output at the bench
shape is compared with the kept kernel's, then every variant and
torch.compile are timed run by run in one interleaved set (the harness's
time_interleaved, rotated input copies past the L2, batches for short calls:
the loop's confirm's method), and the table gives each median over the
kept one's and over torch.compile's.

    python3 bench/gpu/tile_sweep.py col_max_fp16 col_mean_bf16
    python3 bench/gpu/tile_sweep.py --check [TASK ...]   # here: every variant
        through Triton's interpreter at the task's check shapes against its reference
    python3 bench/gpu/tile_sweep.py --dry [TASK ...]     # here: the whole sweep (load,
        compare, time, table) through the interpreter at the largest check shape,
        timed on the CPU: no number of it means anything, the GPU call's path runs
"""
import os
import sys
import types

CHECK = "--check" in sys.argv[1:]
DRY = "--dry" in sys.argv[1:]
if CHECK or DRY:
    os.environ["TRITON_INTERPRET"] = "1"  # before triton is imported

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
KEPT = os.path.join(ROOT, "bench", "results", "2026-12-06-s27-kept")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
from variant_util import load, sub  # noqa: E402


def col_max(text, bm, bn, warps=None, evict=False, stages=None):
    """The kept col_max with BLOCK_M rows x BLOCK_N columns a step, its grid
    over BLOCK_N columns, num_warps, evict_first on the load, and the loop
    as tl.range(..., num_stages=stages) (TDX307's what-if: its load then
    goes through async copies)."""
    w = f", num_warps={warps}" if warps else ""
    t = sub(text, "BLOCK_M=32, BLOCK_N=32)", f"BLOCK_M={bm}, BLOCK_N={bn}{w})")
    t = sub(t, "triton.cdiv(n_cols, 32)", f"triton.cdiv(n_cols, {bn})")
    if evict:
        t = sub(t, 'other=-float("inf"))', 'other=-float("inf"), eviction_policy="evict_first")')
    if stages:
        t = sub(t, "for start in range(0, n_rows, BLOCK_M):",
                f"for start in tl.range(0, n_rows, BLOCK_M, num_stages={stages}):")
    return t


def col_max_variants(text):
    """Inductor's tiles (64x64 w16, 16 cols x 32 rows w4, 8 x 512 w16, 64 cols x 4 rows w8), every
    first step of retune on the kept kernel (rows 64 or 128, columns 64 or 128, 2, 8 or 16 warps),
    and a few between."""
    v = [("kept: 32 rows x 32 cols, 4 warps", text)]
    for bm, bn, w in ((64, 64, 16), (64, 64, 8), (64, 64, 4), (32, 64, 4), (32, 64, 8), (16, 64, 4),
                      (4, 64, 8), (32, 16, 4), (512, 8, 16), (32, 128, 4), (32, 128, 8), (16, 128, 4),
                      (64, 128, 8), (64, 32, 4), (128, 32, 4), (32, 32, 2), (32, 32, 8), (32, 32, 16)):
        v.append((f"{bm} rows x {bn} cols, {w} warps", col_max(text, bm, bn, w)))
    v.append(("kept + evict_first", col_max(text, 32, 32, None, True)))
    v.append(("64 x 64, 16 warps + evict_first", col_max(text, 64, 64, 16, True)))
    v.append(("kept, pipelined (3 stages)", col_max(text, 32, 32, None, stages=3)))
    v.append(("64 x 64, 16 warps, pipelined (2 stages)", col_max(text, 64, 64, 16, stages=2)))
    v.append(("64 x 64, 8 warps, pipelined (3 stages)", col_max(text, 64, 64, 8, stages=3)))
    return v


def col_mean(text, bn, split, rows=64, warps=None, direct=False, evict=False, stages=None):
    """The kept col_mean with BLOCK_N columns, the rows' loop split `split`
    ways (grid axis 2), `rows` rows a step, num_warps; direct (split 1): the
    mean stored into y, no fp32 buffer, no fill and no copy around the
    kernel; evict_first on the load."""
    w = f", num_warps={warps}" if warps else ""
    t = sub(text, "[(triton.cdiv(n_cols, 128), 1, 16)](x, _tdx_acc, n_rows, n_cols, BLOCK_N=128)",
            f"[(triton.cdiv(n_cols, {bn}), 1, {split})](x, _tdx_acc, n_rows, n_cols, BLOCK_N={bn}{w})")
    if rows != 64:
        t = sub(t, "tl.zeros([64, BLOCK_N]", f"tl.zeros([{rows}, BLOCK_N]")
        t = sub(t, "range(_tdx_pid_k * 64, n_rows, 64 * _tdx_split_k)",
                f"range(_tdx_pid_k * {rows}, n_rows, {rows} * _tdx_split_k)")
        t = sub(t, "(_vs + tl.arange(0, 64))", f"(_vs + tl.arange(0, {rows}))")
    if direct:
        assert split == 1
        t = sub(t, 'tl.atomic_add(y_ptr + cols, (acc / n_rows), mask=mask, sem="relaxed")',
                "tl.store(y_ptr + cols, (acc / n_rows).to(y_ptr.dtype.element_ty), mask=mask)")
        t = sub(t, "_tdx_acc = y.zero_() if y.dtype == torch.float32 else torch.zeros_like(y, dtype=torch.float32)",
                "_tdx_acc = y")
    if evict:
        t = sub(t, "other=0.0).to(tl.float32)", 'other=0.0, eviction_policy="evict_first").to(tl.float32)')
    if stages:
        t = sub(t, f"for _vs in range(_tdx_pid_k * {rows}, n_rows, {rows} * _tdx_split_k):",
                f"for _vs in tl.range(_tdx_pid_k * {rows}, n_rows, {rows} * _tdx_split_k, num_stages={stages}):")
    return t


def col_mean_variants(text):
    v = [("kept: 128 cols, split 16, 64 rows, 4 warps", text)]
    for bn, rows, w in ((64, 64, 16), (64, 64, 8), (64, 32, 4), (32, 64, 8), (32, 32, 4), (128, 64, 8),
                        (128, 32, 8)):
        v.append((f"direct: {bn} cols, {rows} rows, {w} warps", col_mean(text, bn, 1, rows, w, direct=True)))
    for bn, split in ((128, 8), (128, 4), (64, 4), (64, 2)):
        v.append((f"{bn} cols, split {split}", col_mean(text, bn, split)))
    for w in (8, 16):  # retune's steps on the kept kernel
        v.append((f"kept, {w} warps", col_mean(text, 128, 16, 64, w)))
    v.append(("kept + evict_first", col_mean(text, 128, 16, evict=True)))
    v.append(("direct 64 x 64, 16 warps + evict_first", col_mean(text, 64, 1, 64, 16, direct=True, evict=True)))
    v.append(("kept, pipelined (3 stages)", col_mean(text, 128, 16, stages=3)))
    v.append(("direct 64 x 64, 16 warps, pipelined (2 stages)", col_mean(text, 64, 1, 64, 16, direct=True, stages=2)))
    return v


SWEEPS = {"col_max_fp16": col_max_variants, "col_mean_bf16": col_mean_variants}


def check(name, variants):
    """Every variant at the task's check shapes, through the interpreter,
    against the task's reference at its tolerance; a line each."""
    import torch
    bad = 0
    for i, (label, text) in enumerate(variants):
        try:
            mod = load(text, f"{name}_c{i}")
            tol = getattr(mod, "TOLERANCE", 1e-2)
            for shape in mod.SHAPES["check"]:
                ins = mod.make_inputs(shape, device="cpu")
                got, want = mod.launch(*ins).double(), mod.reference(*ins)
                if not torch.allclose(got, want, rtol=tol, atol=tol):
                    raise AssertionError(f"differs at {shape}: {(got - want).abs().max().item():.3g}")
            print(f"{name} | {label}: ok", flush=True)
        except Exception as e:  # noqa: BLE001 - every variant gets its line
            bad += 1
            print(f"{name} | {label}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
    return bad


def sweep(name, variants):
    """The table rows of one task: every variant that matches the kept
    output, and torch.compile, timed in one interleaved set."""
    import torch
    from tritondx_harness.common import bench_shape
    from tritondx_harness.stats import batching, repetitions, summarize
    from tritondx_harness.taskload import load_task
    from tritondx_harness.timing import _compile_first, _cpu_times, _no_grad, cpu_shape, rotated
    task = load_task(os.path.join(KEPT, name + ".py"))
    if DRY:
        inputs = task.inputs(cpu_shape(task), "cpu", 0)
        arg_sets = [inputs]
    else:
        from tritondx_harness.gpu import device_info
        inputs = task.inputs(bench_shape(task), "cuda", 0)
        arg_sets, _ = rotated(torch, inputs, device_info(), 4.0)
    want = task.launch(*inputs).float()
    fns, notes = {}, {}
    sync = (lambda: None) if DRY else torch.cuda.synchronize
    for i, (label, text) in enumerate(variants):
        try:
            fn = load(text, f"{name}_v{i}").launch
            diff = (fn(*inputs).float() - want).abs().max().item()
            sync()
        except Exception as e:  # noqa: BLE001 - a variant that fails is a row
            print(f"| {name} | {label} | failed: {type(e).__name__}: {str(e).splitlines()[0][:120]} | | | |")
            continue
        fns[label], notes[label] = fn, f"{diff:.3g}"
    compiled, _, _ = _compile_first(task.module.torch_impl, inputs, not DRY)
    fns["torch.compile"], notes["torch.compile"] = _no_grad(compiled), ""
    if DRY:
        few = types.SimpleNamespace(warmup=1, reps=3, budget_ms=0)
        times = {k: _cpu_times(f, arg_sets, few) for k, f in fns.items()}
    else:
        from tritondx_harness.gpu import estimate_ms, time_interleaved
        est = max(estimate_ms(f, inputs) for f in fns.values())
        batch, reps = batching(est, repetitions(est, 300.0))
        times = time_interleaved(fns, reps, 5, arg_sets, batch)
    med = {k: summarize(v)["median_ms"] for k, v in times.items()}
    iqr = {k: summarize(v)["iqr_ms"] for k, v in times.items()}
    kept, tc = med[variants[0][0]], med["torch.compile"]
    for label in sorted(med, key=med.get):
        print(f"| {name} | {label} | {med[label]:.4f} ({iqr[label] / med[label] * 100:.1f} %) "
              f"| {med[label] / kept:.3f} | {med[label] / tc:.3f} | {notes[label]} |", flush=True)
    del inputs, arg_sets
    torch.cuda.empty_cache()


def main():
    names = [a for a in sys.argv[1:] if a not in ("--check", "--dry")] or sorted(SWEEPS)
    if CHECK:
        bad = 0
        for name in names:
            with open(os.path.join(KEPT, name + ".py")) as f:
                bad += check(name, SWEEPS[name](f.read()))
        sys.exit(1 if bad else 0)
    print("| task | variant | median ms (IQR) | over kept | over torch.compile | max abs diff from kept |")
    print("|---|---|---|---|---|---|")
    for name in names:
        with open(os.path.join(KEPT, name + ".py")) as f:
            sweep(name, SWEEPS[name](f.read()))


if __name__ == "__main__":
    main()
