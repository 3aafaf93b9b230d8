"""Planted bug: the kernel reduces over the wrong axis (columns instead of rows)."""
import torch
import triton
import triton.language as tl


@triton.jit
def rowsum_kernel(x_ptr, out_ptr, n_rows, n_cols, stride, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    rows = tl.arange(0, BLOCK_R)
    cols = tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    s = tl.sum(x, axis=0)
    tl.store(out_ptr + rows, s, mask=rows < n_rows)


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    block = max(triton.next_power_of_2(max(n_rows, n_cols)), 16)
    rowsum_kernel[(1,)](x, out, n_rows, n_cols, x.stride(0), BLOCK_R=block, BLOCK_C=block)
    return out


def reference(x):
    return x.double().sum(dim=1)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (64, 64), "check": [(8, 8), (5, 7)]}
