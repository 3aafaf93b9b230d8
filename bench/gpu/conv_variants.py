"""On the GPU machine: where conv1d's and conv2d's kept kernels (block-outputs,
bench/variants/*_block_outputs.py, as the tenth session's suite kept them) lose
time, by hand-made variants of one knob each: the tap loop's bound a
tl.constexpr (conv1d), the warps, the outputs a program owns (_TDX_R), the
block; and the implicit-GEMM kernels of bench/variants/conv_igemm.py at
several tiles (IGEMM_ONLY=1: those alone). Each variant is checked against the task's reference on the bench
shape (max |error| relative to max |reference|) and timed with
triton.testing.do_bench (median of its repetitions, L2 flushed by it).

    python3 bench/gpu/conv_variants.py
"""
import importlib.util
import os
import re
import sys
import tempfile

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VAR = os.path.join(ROOT, "bench", "variants")


def load(text, name):
    d = tempfile.mkdtemp()
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sub(text, old, new):
    if old not in text:
        raise SystemExit(f"variant edit not found: {old!r}")
    return text.replace(old, new)


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
    yield "as kept (R 32, BLOCK 128, 1 warp)", text
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


# implicit GEMM tiles: (BCO, BP, BCI, num_warps, num_stages)
IGEMM = [(64, 128, 16, 4, 2), (64, 128, 32, 4, 2), (128, 128, 16, 8, 2), (64, 256, 16, 8, 2),
         (128, 64, 16, 4, 2), (32, 128, 16, 4, 3), (64, 128, 16, 4, 3), (128, 128, 32, 8, 2)]


def igemm(name, ins, ref):
    """Rows for the implicit-GEMM kernels of bench/variants/conv_igemm.py."""
    sys.path.insert(0, VAR)
    import conv_igemm
    fn = getattr(conv_igemm, name)
    for bco, bp, bci, nw, ns in IGEMM:
        label = f"implicit GEMM {bco} x {bp} x {bci}, {nw} warps, {ns} stages"
        try:
            out = fn(*ins, BCO=bco, BP=bp, BCI=bci, num_warps=nw, num_stages=ns)
            err = ((out - ref).abs().max() / ref.abs().max()).item()
            ms = triton.testing.do_bench(lambda: fn(*ins, BCO=bco, BP=bp, BCI=bci, num_warps=nw, num_stages=ns))
            print(f"| {name} | {label} | {ms:.3f} | {err:.1e} |", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"| {name} | {label} | {type(e).__name__}: {str(e)[:80]} | |", flush=True)


IGEMM_ONLY = os.environ.get("IGEMM_ONLY") == "1"


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print("| task | variant | ms | max rel. error |")
    print("|---|---|---|---|")
    for name in ("conv1d", "conv2d"):
        with open(os.path.join(VAR, f"{name}_block_outputs.py")) as f:
            text = f.read()
        base = load(text, name + "_base")
        ins = base.make_inputs(base.SHAPES["bench"], device="cuda", seed=0)
        ref = base.torch_impl(*ins)
        t_torch = triton.testing.do_bench(lambda: base.torch_impl(*ins))
        print(f"| {name} | torch (cuDNN, fp32) | {t_torch:.3f} | |", flush=True)
        igemm(name, ins, ref)
        if IGEMM_ONLY:
            continue
        for i, (label, vt) in enumerate(variants(name, text)):
            try:
                m = load(vt, f"{name}_v{i}")
                out = m.launch(*ins)
                err = ((out - ref).abs().max() / ref.abs().max()).item()
                ms = triton.testing.do_bench(lambda: m.launch(*ins))
                print(f"| {name} | {label} | {ms:.3f} | {err:.1e} |", flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"| {name} | {label} | {type(e).__name__}: {str(e)[:80]} | |", flush=True)


if __name__ == "__main__":
    main()
