"""Tile sweep of the square matmul tasks on the GPU (one call, a short table).

For each task: its own launch, torch's `a @ b` (TF32 allowed where the task says so), then the
task's kernel at each (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages), with B as given (N
contiguous) and with B copied K-major at each call (what the operand-layout family does, the copy
included in the time). Every variant is compared with the task's own output before it is timed
(triton.testing.do_bench, ms).
    python3 bench/gpu/mm_sweep.py [TASK ...]     (default: matmul_fp32_square matmul_fp16_square)
"""
import sys

import torch
import triton

sys.path.insert(0, "python")
from tritondx_harness.taskload import load_task  # noqa: E402

CONFIGS = [(128, 128, 32, 4, 3), (128, 128, 32, 4, 4), (128, 128, 32, 8, 3), (128, 128, 32, 8, 4),
           (128, 256, 32, 8, 3), (256, 128, 32, 8, 3), (128, 128, 64, 8, 3), (128, 256, 64, 8, 3),
           (64, 256, 32, 4, 4), (128, 64, 32, 4, 4), (128, 128, 64, 4, 3),
           # the ninth session's best fp32 tile (128 x 256 x 32, 8 warps, 3 stages) with 4 stages and
           # a shorter K step, and its transpose with 4 stages
           (128, 256, 32, 8, 4), (128, 256, 16, 8, 4), (256, 128, 32, 8, 4)]



def main():
    tasks = sys.argv[1:] or ["matmul_fp32_square", "matmul_fp16_square"]
    print("| task | variant | BM x BN x BK | warps | stages | ms | vs task |")
    print("|---|---|---|---|---|---|---|")
    for name in tasks:
        mod = load_task(f"bench/tasks/{name}.py").module
        a, b = mod.make_inputs(mod.SHAPES["bench"])
        torch.backends.cuda.matmul.allow_tf32 = bool(getattr(mod, "TORCH_TF32", False))
        want = mod.launch(a, b)
        base = triton.testing.do_bench(lambda: mod.launch(a, b))
        ref = triton.testing.do_bench(lambda: a @ b)
        print(f"| {name} | task | | | | {base:.4f} | 1.00 |", flush=True)
        print(f"| {name} | torch a @ b | | | | {ref:.4f} | {base / ref:.2f} |", flush=True)
        M, K = a.shape
        N = b.shape[1]
        tol = 2e-3 * want.float().abs().max().item() + 1e-2  # another accumulation order, not garbage
        for layout in ("as given", "B K-major"):
            for bm, bn, bk, w, s in CONFIGS:
                c = torch.empty((M, N), dtype=a.dtype, device=a.device)
                grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))

                def fn():
                    bb = b.t().contiguous().t() if layout == "B K-major" else b
                    mod.matmul_kernel[grid](a, bb, c, M, N, K, a.stride(0), a.stride(1), bb.stride(0),
                                            bb.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
                                            BLOCK_K=bk, num_warps=w, num_stages=s)
                row = f"| {name} | {layout} | {bm} x {bn} x {bk} | {w} | {s} |"
                try:
                    fn()
                    torch.cuda.synchronize()
                    err = (c.float() - want.float()).abs().max().item()
                    if not err < tol:
                        print(f"{row} wrong ({err:.3g}) | |", flush=True)
                        continue
                    ms = triton.testing.do_bench(fn)
                except Exception as e:  # noqa: BLE001 - report and go on (out of shared memory, ...)
                    print(f"{row} {type(e).__name__} | |", flush=True)
                    continue
                print(f"{row} {ms:.4f} | {base / ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
