"""For each row i of a square matrix, the sum of x[i, j] over j <= i, a block
of rows per program and a loop over column blocks up to the diagonal
(peel-masks: the causal bound `offs <= rows`, a tl.store with a mask
inside a second, unmasked statement)."""
import torch
import triton
import triton.language as tl


@triton.jit
def causal_rowsum_kernel(x_ptr, y_ptr, n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for start in range(0, tl.minimum((pid + 1) * BLOCK_M, n), BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        x = tl.load(x_ptr + rows[:, None] * n + cols[None, :], mask=(rows[:, None] < n) & (cols[None, :] < n),
                    other=0.0)
        x = tl.where(cols[None, :] <= rows[:, None], x, 0.0)
        acc += tl.sum(x, axis=1)
    tl.store(y_ptr + rows, acc, mask=rows < n)


def launch(x):
    n = x.shape[0]
    y = torch.empty(n, device=x.device, dtype=torch.float32)
    causal_rowsum_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK_M=64, BLOCK_N=32)
    return y


def reference(x):
    return torch.tril(x.double()).sum(dim=1)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (8192, 8192), "check": [(100, 100), (257, 257), (64, 64)]}
