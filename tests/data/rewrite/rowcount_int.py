"""Positive elements per row, counted over column blocks into an integer
accumulator: a float block accumulator would change its type
(defer-reduction leaves it alone)."""
import torch
import triton
import triton.language as tl


@triton.jit
def count_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    count = 0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
        count += tl.sum((x > 0).to(tl.int32), axis=0)
    tl.store(y_ptr + row, count)


def launch(x):
    y = torch.empty(x.shape[0], device=x.device, dtype=torch.int32)
    count_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=64)
    return y


def reference(x):
    return (x > 0).sum(dim=1).to(torch.int32)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (8192, 8192), "check": [(1, 1), (5, 100), (3, 257)]}
