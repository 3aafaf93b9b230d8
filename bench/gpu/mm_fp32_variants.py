"""On the GPU machine: the fp32 square matmul's kept kernel (made here by the binary, $TDX,
default build/tritondx: retune's first candidate, 128 x 256 x 32, 8 warps, 3 stages, then
operand-layout, then tensor-descriptors, as the suite keeps them) with one knob
changed at a time, beside torch's `a @ b` (TF32, as the task allows): the programs in grouped
order (GROUP_M rows of tiles share their B columns in L2), 4 stages, 256 x 128. Not here: the
K loop warp-specialized (`tl.range(..., warp_specialize=True)`): compiled ahead of time for
sm_90 by Triton 3.6 the loop keeps the attribute but is not partitioned (no ttg.warp_specialize
op, the same 154 registers and 147,480 bytes of shared memory). Each variant is compared with the kept
kernel's output on the bench shape and timed with triton.testing.do_bench (median ms).

    TDX=build/tritondx python3 bench/gpu/mm_fp32_variants.py
"""
import os
import re
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import ROOT, chain, load, sub, time_row, time_variants  # noqa: E402

TASK = os.path.join(ROOT, "bench", "tasks", "matmul_fp32_square.py")

GROUPED = """    _pid = tl.program_id(0)
    _npm = tl.cdiv(M, BLOCK_M)
    _npn = tl.cdiv(N, BLOCK_N)
    _first = (_pid // (GROUP_M * _npn)) * GROUP_M
    _rows = tl.minimum(_npm - _first, GROUP_M)
    pid_m = _first + (_pid % (GROUP_M * _npn)) % _rows
    pid_n = (_pid % (GROUP_M * _npn)) // _rows
"""
PIDS = "    pid_m = tl.program_id(0)\n    pid_n = tl.program_id(1)\n"
TMA_GRID = "matmul_kernel_tma[(triton.cdiv(M, 128), triton.cdiv(N, 256))]"


def tma_edit(text, old, new):
    """text with old replaced by new in matmul_kernel_tma's body only."""
    head, sep, tail = text.partition("def matmul_kernel_tma(")
    body, sep2, rest = tail.partition("\ndef ")
    return head + sep + sub(body, old, new) + sep2 + rest


def grouped(text, group):
    """The tiles in grouped order: a 1-D grid, GROUP_M rows of tiles walked column by column."""
    text = tma_edit(text, "BLOCK_K: tl.constexpr, _tdx_desc0",
                    "BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, _tdx_desc0")
    text = tma_edit(text, PIDS, GROUPED)
    m = re.search(r"matmul_kernel_tma\[\((triton\.cdiv\(M, \d+\)), (triton\.cdiv\(N, \d+\))\)\]", text)
    if not m:
        raise SystemExit("variant edit not found: the TMA kernel's 2-D grid")
    text = text.replace(m.group(0), f"matmul_kernel_tma[({m.group(1)} * {m.group(2)},)]")
    return sub(text, "_TDX_T1=_tdx_d1[1])", f"_TDX_T1=_tdx_d1[1], GROUP_M={group})")


def stages(text, n):
    return sub(text, "num_warps=8, num_stages=3, _tdx_desc0", f"num_warps=8, num_stages={n}, _tdx_desc0")


def tile_256x128(text):
    text = sub(text, TMA_GRID, "matmul_kernel_tma[(triton.cdiv(M, 256), triton.cdiv(N, 128))]")
    text = sub(text, "BLOCK_M=128, BLOCK_K=32)", "BLOCK_M=256, BLOCK_K=32)")
    text = sub(text, "BLOCK_K=32, BLOCK_N=256)", "BLOCK_K=32, BLOCK_N=128)")
    return sub(text, "BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, num_warps=8, num_stages=3, _tdx_desc0",
               "BLOCK_M=256, BLOCK_N=128, BLOCK_K=32, num_warps=8, num_stages=3, _tdx_desc0")


def main():
    kept_text = chain(TASK, "retune", "operand-layout", "tensor-descriptors")
    kept = load(kept_text, "mm_kept")
    ins = kept.make_inputs(kept.SHAPES["bench"], device="cuda")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch_ms = triton.testing.do_bench(lambda: ins[0] @ ins[1], warmup=25, rep=200)
    want = kept.launch(*ins)
    print("| kernel | variant | ms | vs kept | torch ms | max abs diff |")
    print("|---|---|---|---|---|---|")
    kept_ms = time_row("matmul_fp32", "as kept", kept.launch, ins, want, None, torch_ms)
    variants = [
        ("grouped GROUP_M=8", grouped(kept_text, 8)),
        ("grouped GROUP_M=4", grouped(kept_text, 4)),
        ("grouped GROUP_M=16", grouped(kept_text, 16)),
        ("4 stages", stages(kept_text, 4)),
        ("grouped 8, 4 stages", stages(grouped(kept_text, 8), 4)),
        ("256 x 128", tile_256x128(kept_text)),
        ("256 x 128 grouped 8", grouped(tile_256x128(kept_text), 8)),
    ]
    time_variants("matmul_fp32", variants, ins, want, kept_ms, torch_ms)


if __name__ == "__main__":
    main()
