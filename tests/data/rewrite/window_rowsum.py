"""Sums of each row from a per-row start column to the end, in blocks, with a
masked select in the loop (peel-masks: a loop whose start is not 0, a mask
name bound in the body, `n_cols > offs` written the other way round)."""
import torch
import triton
import triton.language as tl


@triton.jit
def window_rowsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    first = row % 7
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(first, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        inside = n_cols > offs
        x = tl.load(x_ptr + row * stride + offs, mask=inside, other=0.0)
        acc += tl.where(inside, x * x, 0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    y = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    window_rowsum_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=64)
    return y


def reference(x):
    x = x.double()
    return torch.stack([(x[r, r % 7:] ** 2).sum() for r in range(x.shape[0])])


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (8192, 8192), "check": [(9, 100), (3, 257), (8, 5)]}
