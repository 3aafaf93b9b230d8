"""On the GPU machine: bmm_fp16's kept kernel (made here by the binary, $TDX,
default build/tritondx: retune's first candidate, 128 x 256 x 64, then
tensor-descriptors, then retune's first candidate on the TMA copy, 128 x 128
x 64, 8 warps, 3 stages -- the suite's kept chain) with one knob changed at a
time, beside torch's `torch.bmm` (cuBLAS): retune's other tiles of the TMA
copy, the first TMA kernel (128 x 256 x 64), 4 stages (grouped-order and
persistent-grid make nothing of its 3-D grid). Each variant is
compared with the kept kernel's output on the bench shape and timed with
triton.testing.do_bench (median ms).

    TDX=build/tritondx python3 bench/gpu/bmm_variants.py
"""
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import ROOT, chain, load, sub, time_row, time_variants  # noqa: E402

TASK = os.path.join(ROOT, "bench", "tasks", "bmm_fp16.py")


def stages(text, n):
    return sub(text, "num_stages=3, _tdx_desc0", f"num_stages={n}, _tdx_desc0")


def main():
    steps = ("retune", "tensor-descriptors")
    kept_text = chain(TASK, *steps, "retune")
    kept = load(kept_text, "bmm_kept")
    ins = kept.make_inputs(kept.SHAPES["bench"], device="cuda")
    torch_ms = triton.testing.do_bench(lambda: torch.bmm(*ins), warmup=25, rep=200)
    want = kept.launch(*ins)
    print("| kernel | variant | ms | vs kept | torch ms | max abs diff |")
    print("|---|---|---|---|---|---|")
    kept_ms = time_row("bmm_fp16", "as kept (TMA 128 x 128 x 64, 8 warps, 3 stages)", kept.launch, ins, want,
                       None, torch_ms)
    variants = [("TMA 128 x 256 x 64, 8 warps, 3 stages (before the last retune)", chain(TASK, *steps)),
                ("as kept, 4 stages", stages(kept_text, 4))]
    for pick, name in ((2, "TMA 128 x 128 x 32, 4 warps, 4 stages"), (3, "TMA 64 x 128 x 64, 4 warps, 4 stages"),
                       (4, "TMA 128 x 64 x 32, 4 warps, 4 stages")):
        variants.append((name, chain(TASK, *steps, ("retune", pick))))
    time_variants("bmm_fp16", variants, ins, want, kept_ms, torch_ms)


if __name__ == "__main__":
    main()
