"""On the GPU machine: what tensor-descriptor (TMA) loads of K and V, and
larger query tiles, are worth on the suite's kept attention kernels (the
forward kernels of attention_fp16 / attention_causal_fp16 as the suite kept
them: TASK.opt.py). Each variant edits the kept text: K and V loaded through
3-D descriptors over (batch x heads, S, HEAD_DIM) (`desc.load([bh, start_n,
0]).reshape(BLOCK_N, HEAD_DIM)`: rows past S read as zero, as the masked
loads' other=0 did), tl.exp as tl.exp2 with the scale folded, and other
BLOCK_M / BLOCK_N / num_warps / num_stages. Timed on the bench shape with
triton.testing.do_bench (median) beside torch's torch_impl (SDPA); a variant
must match the kept kernel's output (max abs difference printed).

    python3 bench/gpu/attn_tma_variants.py FILE.opt.py ...
"""
import os
import re
import sys

import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import load, sub, time_row, variant_files  # noqa: E402

LOAD = re.compile(r"tl\.load\(([kv])_ptr \+ base \+ offs_n\[:, None\] \* HEAD_DIM \+ offs_d\[None, :\]"
                  r"(?:, mask=offs_n\[:, None\] < S, other=0\.0)?\)")


def tma(text):
    """K and V through descriptors built in launch."""
    text, n = LOAD.subn(lambda m: f"{m.group(1)}_desc.load([bh, start_n, 0]).reshape(BLOCK_N, HEAD_DIM)", text)
    if n < 2:
        raise SystemExit("attention loads not found")
    text = sub(text, "BLOCK_N: tl.constexpr):", "BLOCK_N: tl.constexpr, k_desc, v_desc):")
    text = sub(text, "import triton\n", "import triton\nfrom triton.tools.tensor_descriptor import TensorDescriptor\n")
    bn = re.search(r"attention_kernel\[grid\]\(.*BLOCK_N=(\d+)", text).group(1)
    return re.sub(r"(attention_kernel\[grid\]\(q, k, v, o, S, [^\n]*)\)\n",
                  lambda m: (m.group(1) + f", k_desc=TensorDescriptor.from_tensor(k.reshape(B * H, S, D), [1, {bn}, D])"
                             f", v_desc=TensorDescriptor.from_tensor(v.reshape(B * H, S, D), [1, {bn}, D]))\n"),
                  text, count=1)


def exp2(text):
    text = text.replace("alpha = tl.exp(m_i - m_new)", "alpha = tl.exp2((m_i - m_new) * 1.4426950408889634)")
    return text.replace("p = tl.exp(qk - m_new[:, None])", "p = tl.exp2((qk - m_new[:, None]) * 1.4426950408889634)")


def tiles(text, bm, bn, nw, ns):
    if "num_warps=" not in text:
        text = re.sub(r"(attention_kernel\[grid\]\([^\n]*)\)\n", r"\1, num_warps=4, num_stages=3)\n", text, count=1)
    text = re.sub(r"BLOCK_M=\d+", f"BLOCK_M={bm}", text)
    text = re.sub(r"BLOCK_N=\d+", f"BLOCK_N={bn}", text)
    text = re.sub(r"\[1, \d+, D\]", f"[1, {bn}, D]", text)
    text = re.sub(r"num_warps=\d+", f"num_warps={nw}", text)
    text = re.sub(r"num_stages=\d+", f"num_stages={ns}", text)
    return re.sub(r"grid = \(triton\.cdiv\(S, \d+\)", f"grid = (triton.cdiv(S, {bm})", text)


def variants(text):
    yield "as kept", text
    yield "exp2", exp2(text)
    t = tma(exp2(text))
    yield "tma+exp2", t
    for cfg in [(128, 64, 8, 3), (128, 128, 8, 3), (128, 64, 4, 3), (64, 128, 4, 3), (128, 64, 8, 4)]:
        yield f"tiles {cfg}", tiles(exp2(text), *cfg)
        yield f"tma+exp2 tiles {cfg}", tiles(t, *cfg)


def main():
    for n, task, text in variant_files(sys.argv[1:]):
        kept = None
        for i, (name, src) in enumerate(variants(text)):
            try:
                mod = load(src, f"a{n}_{i}")
            except Exception as e:  # noqa: BLE001 - a variant that does not build is a row, not a stop
                print(f"| {task} | {name} | failed: {type(e).__name__}: {e} | | | |")
                continue
            if i == 0:
                ins = mod.make_inputs(mod.SHAPES["bench"], device="cuda", seed=0)
                want = mod.launch(*ins)
                tt = triton.testing.do_bench(lambda: mod.torch_impl(*ins), warmup=25, rep=200)
            ms = time_row(task, name, mod.launch, ins, want, kept, tt)
            kept = kept or ms


if __name__ == "__main__":
    main()
