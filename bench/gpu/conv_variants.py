"""On the GPU machine: where conv1d's and conv2d's rewritten kernels lose time,
by variants of one knob each. The kernels are made here by the binary
($TDX, default build/tritondx): block-outputs' first candidate on the task
(what the suite keeps in round 1) and dot-accumulate's on that (the
follow-up). Variants: for block-outputs the tap loop's bound a tl.constexpr
(conv1d), the warps, the outputs a program owns (_TDX_R), the block; for
dot-accumulate the chunk (_TDX_BK), warps, stages, R and the block; and the
implicit-GEMM kernels of bench/variants/conv_igemm.py at several tiles;
tensor-cores' tf32 and tf32x3 candidates on dot-accumulate's and the
implicit GEMMs in tf32x3 (x3); the dot-accumulate kernel as kept (IEEE)
beside tensor-cores' rounded tf32 candidate, the same dot unrounded (plain
tf32) and tf32x3, with torch.compile and the check's relative error norm
against the float64 reference (tf32). ONLY=igemm|x3|block|dot|tf32 runs one
group.
Each variant is checked against the task's reference on the bench shape
(max |error| relative to max |reference|) and timed with
triton.testing.do_bench (median of its repetitions, L2 flushed by it).

    TDX=build/tritondx python3 bench/gpu/conv_variants.py
"""
import os
import re
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import ROOT, chain, load, sub  # noqa: E402

VAR = os.path.join(ROOT, "bench", "variants")


def launch_kw(text, **kw):
    """Change keyword values in the launch's kernel call."""
    for k, v in kw.items():
        text, n = re.subn(rf"\b{k}=\d+", f"{k}={v}", text)
        if n == 0:
            raise SystemExit(f"no {k}= in the launch")
    return text


def grid_div(text, old, new):
    return sub(text, f"triton.cdiv(C_out, {old})", f"triton.cdiv(C_out, {new})")


def variants(name, text):
    yield "block-outputs (R 32, BLOCK 128, 1 warp)", text
    if name == "conv1d":
        k = sub(text, "L_out, K, BLOCK: tl.constexpr", "L_out, K: tl.constexpr, BLOCK: tl.constexpr")
        yield "K: tl.constexpr", k
        yield "K: tl.constexpr, 4 warps", launch_kw(k, num_warps=4)
    for w in (2, 4):
        yield f"{w} warps", launch_kw(text, num_warps=w)
    for r in (16, 64):
        yield f"R {r}", grid_div(launch_kw(text, _TDX_R=r), 32, r)
    yield "R 64, 4 warps", grid_div(launch_kw(text, _TDX_R=64, num_warps=4), 32, 64)
    yield "BLOCK 256, 2 warps", sub(launch_kw(text, BLOCK=256, num_warps=2), ", 128)", ", 256)") \
        if ", 128)" in text else text
    yield "BLOCK 64, R 64, 2 warps", grid_div(sub(launch_kw(text, BLOCK=64, _TDX_R=64, num_warps=2),
                                                  ", 128)", ", 64)"), 32, 64)


def x3_variants(tf32, x3):
    """tensor-cores' two candidates on dot-accumulate's: tf32 (fails the
    fp32 check on conv2d by 1.1e-3 against 1e-3), tf32x3 (three tf32
    products; compiled ahead of time at R 32 x BLOCK 256 it spills 372 bytes
    at 255 registers) and tf32x3 at smaller tiles."""
    def block(t, b):
        return sub(launch_kw(t, BLOCK=b), ", 256)", f", {b})")

    yield "tensor-cores tf32", tf32
    yield "tensor-cores tf32x3", x3
    yield "tf32x3, BLOCK 128", block(x3, 128)
    yield "tf32x3, BLOCK 128, 8 warps", block(launch_kw(x3, num_warps=8), 128)
    yield "tf32x3, R 16", grid_div(launch_kw(x3, _TDX_R=16), 32, 16)


def dot_variants(text):
    """dot-accumulate's candidate (R 32, BLOCK 256, _TDX_BK 16, 4 warps, 1 stage) and its knobs."""
    def block(t, b):
        return sub(launch_kw(t, BLOCK=b), ", 256)", f", {b})")

    yield "dot-accumulate (R 32, BLOCK 256, BK 16, 4 warps, 1 stage)", text
    yield "BK 32", launch_kw(text, _TDX_BK=32)
    for w in (2, 8):
        yield f"{w} warps", launch_kw(text, num_warps=w)
    for ns in (2, 3):
        yield f"num_stages={ns}", launch_kw(text, num_stages=ns)
    yield "R 64", grid_div(launch_kw(text, _TDX_R=64), 32, 64)
    yield "R 64, 8 warps", grid_div(launch_kw(text, _TDX_R=64, num_warps=8), 32, 64)
    yield "R 16", grid_div(launch_kw(text, _TDX_R=16), 32, 16)
    yield "BLOCK 128", block(text, 128)
    yield "BLOCK 512, 8 warps", block(launch_kw(text, num_warps=8), 512)
    yield "BLOCK 512, R 64, 8 warps", grid_div(block(launch_kw(text, _TDX_R=64, num_warps=8), 512), 32, 64)
    yield "BLOCK 512, R 16", grid_div(block(launch_kw(text, _TDX_R=16), 512), 32, 16)


def run_variants(name, group, ins, ref):
    for i, (label, vt) in enumerate(group):
        try:
            m = load(vt, f"{name}_v{abs(hash(label))}")
            out = m.launch(*ins)
            err = ((out - ref).abs().max() / ref.abs().max()).item()
            ms = triton.testing.do_bench(lambda: m.launch(*ins))
            print(f"| {name} | {label} | {ms:.3f} | {err:.1e} |", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"| {name} | {label} | {type(e).__name__}: {str(e)[:80]} | |", flush=True)


# implicit GEMM tiles: (BCO, BP, BCI, num_warps, num_stages)
IGEMM = [(64, 128, 16, 4, 2), (64, 128, 32, 4, 2), (128, 128, 16, 8, 2), (64, 256, 16, 8, 2),
         (128, 64, 16, 4, 2), (32, 128, 16, 4, 3), (64, 128, 16, 4, 3), (128, 128, 32, 8, 2)]


def igemm(name, ins, ref, prec="ieee"):
    """Rows for the implicit-GEMM kernels of bench/variants/conv_igemm.py."""
    sys.path.insert(0, VAR)
    import conv_igemm
    fn = getattr(conv_igemm, name)
    for bco, bp, bci, nw, ns in IGEMM:
        label = f"implicit GEMM {bco} x {bp} x {bci}, {nw} warps, {ns} stages, {prec}"
        kw = dict(BCO=bco, BP=bp, BCI=bci, num_warps=nw, num_stages=ns, PREC=prec)
        try:
            out = fn(*ins, **kw)
            err = ((out - ref).abs().max() / ref.abs().max()).item()
            ms = triton.testing.do_bench(lambda: fn(*ins, **kw))
            print(f"| {name} | {label} | {ms:.3f} | {err:.1e} |", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"| {name} | {label} | {type(e).__name__}: {str(e)[:80]} | |", flush=True)


def tf32_rows(name, task, ins):
    """The IEEE dot as kept, rounded tf32 (tensor-cores' first candidate),
    the same unrounded (the helper returning its argument), tf32x3: ms, the
    ratio to the IEEE kernel, ||out - ref|| / ||ref|| against the float64
    reference (the check's measure; tolerance 1e-3 for a tf32 output) and
    the largest |error| relative to max |ref|. torch eager and torch.compile
    (fp32, no tf32) beside."""
    import torch._dynamo
    steps = ("block-outputs", "dot-accumulate")
    ieee = chain(task, *steps)
    rounded = chain(task, *steps, "tensor-cores")
    plain = sub(rounded, "    if x.dtype == tl.float32:\n", "    if False:\n")
    x3 = chain(task, *steps, ("tensor-cores", 2))
    base = load(ieee, name + "_ieee")
    ref = base.reference(*ins)
    norm = ref.norm().item()
    kept = None

    def row(label, fn):
        nonlocal kept
        try:
            out = fn(*ins)
            torch.cuda.synchronize()
            rel = ((out.double() - ref).norm() / norm).item()
            mx = ((out.double() - ref).abs().max() / ref.abs().max()).item()
            ms = triton.testing.do_bench(lambda: fn(*ins))
            kept = kept or ms
            print(f"| {name} | {label} | {ms:.3f} | {ms / kept:.3f} | {rel:.2e} | {mx:.1e} |", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"| {name} | {label} | {type(e).__name__}: {str(e)[:80]} | | | |", flush=True)

    def block(t, b):
        return sub(launch_kw(t, BLOCK=b), ", 256)", f", {b})")

    row("dot-accumulate, IEEE (as kept)", base.launch)
    for label, text in (("rounded tf32 (tensor-cores 1)", rounded), ("plain tf32", plain),
                        ("tf32x3 (tensor-cores 2)", x3),
                        # the rounded kernel's knobs: R 64 gives wgmma its 64 rows
                        ("rounded, R 64", grid_div(launch_kw(rounded, _TDX_R=64), 32, 64)),
                        ("rounded, R 64, 8 warps", grid_div(launch_kw(rounded, _TDX_R=64, num_warps=8), 32, 64)),
                        ("rounded, BK 32", launch_kw(rounded, _TDX_BK=32)),
                        ("rounded, BLOCK 128", block(rounded, 128)),
                        ("rounded, num_stages=2", launch_kw(rounded, num_stages=2))):
        row(label, load(text, f"{name}_{abs(hash(label))}").launch)
    row("torch eager (cuDNN fp32)", base.torch_impl)
    torch._dynamo.reset()
    row("torch.compile (fp32)", torch.compile(base.torch_impl))


ONLY = os.environ.get("ONLY", "")


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if ONLY == "tf32":
        print("| task | kernel | ms | ÷ IEEE | error norm | max error |")
        print("|---|---|---|---|---|---|")
        for name in ("conv1d", "conv2d"):
            task = os.path.join(ROOT, "bench", "tasks", f"{name}.py")
            base = load(open(task).read(), name + "_task")
            tf32_rows(name, task, base.make_inputs(base.SHAPES["bench"], device="cuda", seed=0))
        return
    print("| task | variant | ms | max rel. error |")
    print("|---|---|---|---|")
    for name in ("conv1d", "conv2d"):
        task = os.path.join(ROOT, "bench", "tasks", f"{name}.py")
        text = chain(task, "block-outputs")
        dot = chain(task, "block-outputs", "dot-accumulate")
        base = load(text, name + "_base")
        ins = base.make_inputs(base.SHAPES["bench"], device="cuda", seed=0)
        ref = base.torch_impl(*ins)
        t_torch = triton.testing.do_bench(lambda: base.torch_impl(*ins))
        print(f"| {name} | torch (cuDNN, fp32) | {t_torch:.3f} | |", flush=True)
        if ONLY in ("", "igemm"):
            igemm(name, ins, ref)
        if ONLY in ("", "x3"):
            igemm(name, ins, ref, "tf32x3")
            steps = ("block-outputs", "dot-accumulate")
            run_variants(name, x3_variants(chain(task, *steps, "tensor-cores"),
                                           chain(task, *steps, ("tensor-cores", 2))), ins, ref)
        if ONLY in ("", "dot"):
            run_variants(name, dot_variants(dot), ins, ref)
        if ONLY in ("", "block"):
            run_variants(name, variants(name, text), ins, ref)

if __name__ == "__main__":
    main()
