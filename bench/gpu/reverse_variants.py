"""On the GPU machine: two-pass kernels whose second pass reads the same
range again (log_softmax_long: an online max/sum pass, then the write pass;
groupnorm: the statistics, then the normalisation), each kept kernel rebuilt
here by the binary ($TDX, default build/tritondx) from the families the suite
chained. Variants: the last pass walked backwards (the blocks the first pass
read last are the ones still in L2), and for log_softmax_long whole rows in
one block (BLOCK 65536 > 50257 columns: each pass is one iteration). Beside:
torch eager and torch.compile of the task's torch_impl. Each variant is
compared with the kept kernel's output on the bench shape and timed with
triton.testing.do_bench (median ms).

    TDX=build/tritondx python3 bench/gpu/reverse_variants.py
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import compile_header, kept_beside_torch, sub, time_variants  # noqa: E402

TASKS = {
    "log_softmax_long": ("retune",),
    "groupnorm": ("single-pass-reduction", "defer-reduction", "retune"),
}


def reverse_last_loop(text):
    """text with the kernel's last `for start in range(0, N, BLOCK):` walked from its last block down."""
    loops = list(re.finditer(r"\n( +)for start in range\(0, (\w+), BLOCK\):\n", text))
    if len(loops) < 2:
        raise SystemExit("fewer than two passes over start")
    m = loops[-1]
    ind, n = m.group(1), m.group(2)
    new = (f"\n{ind}for _tdx_i in range(0, {n}, BLOCK):\n"
           f"{ind}    start = ({n} - 1) // BLOCK * BLOCK - _tdx_i\n")
    return text[:m.start()] + new + text[m.end():]


def main():
    compile_header()
    for task, steps in TASKS.items():
        kept_text, kept, ins, want, kept_ms, compile_ms = kept_beside_torch(task, steps)
        rev = reverse_last_loop(kept_text)
        var = [("last pass backwards", rev)]
        if task == "log_softmax_long":
            for block, warps in ((65536, 16), (65536, 32), (16384, 16)):
                t = sub(kept_text, "BLOCK=4096, num_warps=8", f"BLOCK={block}, num_warps={warps}")
                var.append((f"BLOCK {block}, {warps} warps", t))
            var.append(("last pass backwards, BLOCK 16384, 16 warps",
                        sub(rev, "BLOCK=4096, num_warps=8", "BLOCK=16384, num_warps=16")))
        else:
            var.append(("last pass backwards, 16 warps", sub(rev, "num_warps=8", "num_warps=16")))
        time_variants(task, var, ins, want, kept_ms, compile_ms)
        del ins, want


if __name__ == "__main__":
    main()
