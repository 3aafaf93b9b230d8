"""On the GPU machine: the column reductions the suite keeps a few per cent
behind torch.compile (col_max_fp16 0.140 ms against 0.127, col_mean_bf16
0.13 against 0.125, col_sum 0.24 against 0.237 in l0s17/l03s18), each
kept kernel rebuilt here by the binary ($TDX, default build/tritondx) from the
families the suite chained, with one knob changed at a time: the split
(grid axis 2), the tile's rows, BLOCK_N, num_warps; plus what the launch's
two torch ops around the kernel cost alone (the accumulator's fill and the
copy into the output), and where the output is fp32 (its own accumulator
since split-reduction's change) a buffer apart and the copy, as before. Beside: torch eager and torch.compile of the task's
torch_impl. Each variant is compared with the kept kernel's output on the
bench shape and timed with triton.testing.do_bench (median ms).

    TDX=build/tritondx python3 bench/gpu/colred_variants.py
"""
import os
import re
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import compile_header, kept_beside_torch, sub, time_row, time_variants  # noqa: E402

TASKS = {
    "col_max_fp16": ("split-reduction", "defer-reduction", "retune"),
    "col_mean_bf16": ("vectorize-loop", "split-reduction", "defer-reduction", "retune"),
    "col_sum": ("coalesce", "split-reduction"),
}


def grid_edit(text, fn):
    """text with the kernel launch's 3-axis grid (cdiv(n, B), 1, S) rewritten by fn(B, S) -> (B, S)."""
    m = re.search(r"\[\(triton\.cdiv\((\w+), (\d+)\), 1, (\d+)\)\]", text)
    if not m:
        raise SystemExit("no split grid in the kept launch")
    b, s = fn(int(m.group(2)), int(m.group(3)))
    return text.replace(m.group(0), f"[(triton.cdiv({m.group(1)}, {b}), 1, {s})]")


def launch_kw(text, name, value):
    """The launch's keyword name set to value (added when absent)."""
    m = re.search(r"(\]\(x, _tdx_acc, [^\n]*?)\)\n", text)
    if not m:
        raise SystemExit("no kernel launch on the accumulator")
    call = m.group(1)
    if re.search(rf"\b{name}=\d+", call):
        new = re.sub(rf"\b{name}=\d+", f"{name}={value}", call)
    else:
        new = call + f", {name}={value}"
    return text.replace(call, new)


def variants_of(kept_text):
    block_n = int(re.search(r"triton\.cdiv\(\w+, (\d+)\), 1, \d+\)", kept_text).group(1))
    out = []
    for s in (4, 16, 32):
        out.append((f"split {s}", grid_edit(kept_text, lambda b, _s, s=s: (b, s))))
    if "BLOCK_M=" in kept_text:
        for m in (16, 64):
            out.append((f"BLOCK_M {m}", launch_kw(kept_text, "BLOCK_M", m)))
    bn = "BLOCK_N" if "BLOCK_N=" in kept_text else "BLOCK"
    for n in (block_n // 2, block_n * 2):
        t = launch_kw(grid_edit(kept_text, lambda b, s, n=n: (n, s)), bn, n)
        out.append((f"{bn} {n}", t))
    out.append(("num_warps 8", launch_kw(kept_text, "num_warps", 8)))
    out.append(("num_warps 2", launch_kw(kept_text, "num_warps", 2)))
    return out


def main():
    compile_header()
    for task, steps in TASKS.items():
        kept_text, kept, ins, want, kept_ms, compile_ms = kept_beside_torch(task, steps)
        y = want.clone()
        fill = "full_like" if "torch.full_like(y" in kept_text else "zeros_like"
        init = float("-inf") if fill == "full_like" else 0.0

        def aux(*_a):
            acc = torch.full_like(y, init, dtype=torch.float32)
            y.copy_(acc)
            return want

        time_row(task, f"the launch's {fill} + copy_ alone", aux, ins, want, kept_ms, compile_ms)
        var = variants_of(kept_text)
        own = "_tdx_acc = y.zero_() if y.dtype == torch.float32 else torch.zeros_like(y, dtype=torch.float32)"
        if own in kept_text:  # the fp32 output is its own accumulator: against a buffer apart and a copy_
            var.append(("an fp32 accumulator apart, then copy_",
                        sub(kept_text, own, "_tdx_acc = torch.zeros_like(y, dtype=torch.float32)")))
        time_variants(task, var, ins, want, kept_ms, compile_ms)
        del ins, want, y


if __name__ == "__main__":
    main()
