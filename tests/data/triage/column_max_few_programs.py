"""Column maxima of a tall matrix: one program per 64 columns walks all
8192 rows, so the bench shape's grid is 256 programs (under 2 per SM)."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_max_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.full((BLOCK_N,), -float("inf"), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=-float("inf"))
        acc = tl.maximum(acc, tl.max(x, axis=0))
    tl.store(y_ptr + cols, acc, mask=cols < n_cols)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_max_kernel[(triton.cdiv(n_cols, 64),)](x, y, n_rows, n_cols, BLOCK_M=16, BLOCK_N=64)
    return y


def reference(x):
    return x.max(dim=0).values


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (8192, 16384), "check": [(5, 7), (100, 130)]}
