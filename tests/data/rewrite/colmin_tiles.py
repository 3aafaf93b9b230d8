"""Column minima over row tiles: one program per 8 columns, the running
minimum updated as tl.minimum(tile minimum, acc) and stored as it is."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_min_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.full((BLOCK_N,), float("inf"), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=float("inf"))
        acc = tl.minimum(tl.min(x, axis=0), acc)
    tl.store(y_ptr + cols, acc, mask=cols < n_cols)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_min_kernel[(triton.cdiv(n_cols, 8),)](x, y, n_rows, n_cols, BLOCK_M=4, BLOCK_N=8)
    return y


def reference(x):
    return x.min(dim=0).values


def make_inputs(shape, dtype=torch.float32, device="cpu", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (4096, 4096), "check": [(1, 1), (37, 20), (9, 33)]}
