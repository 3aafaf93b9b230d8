"""On the GPU machine: where log_softmax_long's online loop loses time, by
variants of its kernel. The task's kernel keeps the running maximum and sum as
scalars: every iteration pays two cross-warp reductions (tl.max, tl.sum) with
their barriers. The variants keep them as elementwise tiles of the block's
shape (one maximum and one rescaled sum per lane), reduced once after the
loop -- with tl.exp or tl.exp2, at several blocks and warps; one block of
65536 for the whole row with the write pass reloading it, and one pass that
loads the row once and reuses it for the write (upcast at the load or kept in
16 bits), at 8, 16 and 32 warps. Each variant is
checked against the task's reference on the bench shape and timed with
triton.testing.do_bench (median, L2 flushed by it).

    python3 bench/gpu/online_variants.py            (ONLY="one pass": the labels holding it)
"""
import os
import re
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import load, sub  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASK = os.path.join(ROOT, "bench", "tasks", "log_softmax_long.py")


def scalar_loop(text):
    """The task's online loop, from its running maximum's first line to lse's."""
    a = text.index('    m = -float("inf")\n')
    return text[a:text.index("\n", text.index("    lse = ", a)) + 1]


# the running state per lane; a lane that has seen only masked (-inf) values
# keeps m = -inf and s = 0 (the guards keep exp(-inf - -inf) out)
VECTOR_LOOP = """    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        seen = m_new > -float("inf")
        s = tl.where(seen, s * EXP(SCALE(m - m_new)) + EXP(SCALE(x - m_new)), 0.0)
        m = m_new
    m_row = tl.max(m, axis=0)
    s_row = tl.sum(tl.where(m > -float("inf"), s * EXP(SCALE(m - m_row)), 0.0), axis=0)
    lse = m_row + tl.log(s_row)
"""

ONE_BLOCK = """    offs = tl.arange(0, BLOCK)
    x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
"""


# the whole row in one block, loaded once and reused by the write (the
# single-pass form): upcast at the load, or kept in 16 bits and upcast where used
ONE_PASS = """    offs = tl.arange(0, BLOCK)
    x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf"))CAST
    m = tl.max(x, axis=0).to(tl.float32)
    lse = m + tl.log(tl.sum(tl.exp(x.to(tl.float32) - m), axis=0))
    tl.store(y_row + offs, (x.to(tl.float32) - lse).to(y_row.dtype.element_ty), mask=offs < n_cols)
"""

WRITE_LOOP = """    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        tl.store(y_row + offs, (x - lse).to(y_row.dtype.element_ty), mask=offs < n_cols)
"""


def launch(text, block, warps):
    call = "BLOCK=1024)"
    new = f"BLOCK={block}" + (f", num_warps={warps})" if warps else ")")
    return sub(text, call, new)


def vector(text, exp2):
    body = VECTOR_LOOP.replace("EXP", "tl.exp2" if exp2 else "tl.exp")
    body = re.sub(r"SCALE\(([^()]*)\)", (r"(\1) * 1.4426950408889634") if exp2 else r"(\1)", body)
    return sub(text, scalar_loop(text), body)


def variants(text):
    yield "task kernel (scalar state, BLOCK 1024, 4 warps)", text
    for b, w in ((2048, 8), (4096, 8)):
        yield f"scalar state, BLOCK {b}, {w} warps", launch(text, b, w)
    v, v2 = vector(text, False), vector(text, True)
    yield "vector state, exp, BLOCK 1024, 4 warps", v
    yield "vector state, exp2, BLOCK 1024, 4 warps", v2
    for b, w in ((1024, 8), (2048, 4), (2048, 8), (4096, 8), (4096, 16), (512, 4)):
        yield f"vector state, exp2, BLOCK {b}, {w} warps", launch(v2, b, w)
    one = sub(text, scalar_loop(text), ONE_BLOCK)
    for w in (16, 32):
        yield f"one block (65536), {w} warps, the write pass reloads", launch(one, 65536, w)
    for cast, label in ((".to(tl.float32)", "fp32 at the load"), ("", "16-bit kept")):
        one = sub(sub(text, WRITE_LOOP, ""), scalar_loop(text), ONE_PASS.replace("CAST", cast))
        for w in (8, 16, 32):
            yield f"one pass, one block (65536), {label}, {w} warps", launch(one, 65536, w)


def main():
    with open(TASK) as f:
        text = f.read()
    base = load(text, "lsm_base")
    ins = base.make_inputs(base.SHAPES["bench"], device="cuda", seed=0)
    ref = base.reference(*ins).float()
    t_torch = triton.testing.do_bench(lambda: base.torch_impl(*ins))
    print("| variant | ms | max abs. error |")
    print("|---|---|---|")
    print(f"| torch eager | {t_torch:.3f} | |", flush=True)
    only = os.environ.get("ONLY", "")  # a part of the labels to run ("one pass")
    for i, (label, vt) in enumerate(variants(text)):
        if only not in label:
            continue
        try:
            m = load(vt, f"lsm_v{i}")
            out = m.launch(*ins)
            err = (out.float() - ref).abs().max().item()
            ms = triton.testing.do_bench(lambda: m.launch(*ins))
            print(f"| {label} | {ms:.3f} | {err:.1e} |", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"| {label} | {type(e).__name__}: {str(e)[:100]} | |", flush=True)


if __name__ == "__main__":
    main()
