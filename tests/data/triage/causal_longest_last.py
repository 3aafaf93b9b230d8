# A causal row sum: program pid walks the column blocks up to its diagonal,
# pid + 1 of them (through a bound named before the loop). The programs with
# the most blocks come last in the grid: TDX032 on the loop.
import torch
import triton
import triton.language as tl


@triton.jit
def causal_rowsum_kernel(x_ptr, y_ptr, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(axis=0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    hi = tl.minimum((pid + 1) * BLOCK_M, n)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for start in range(0, hi, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * n + cols[None, :], mask=(rows[:, None] < n) & (cols[None, :] <= rows[:, None]),
                    other=0.0)
        acc += tl.sum(x, axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < n)


def launch(x):
    n = x.shape[0]
    y = torch.empty(n, device=x.device, dtype=torch.float32)
    causal_rowsum_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK_M=64, BLOCK_N=32)
    return y
