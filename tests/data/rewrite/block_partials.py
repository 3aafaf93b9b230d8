"""Sum of a vector in two steps: one partial sum per block, then torch sums
the partials. The block size also sizes the buffer of partials, so the
autotune family must leave the launch alone."""
import torch
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, p_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(p_ptr + pid, tl.sum(x, axis=0))


def launch(x):
    n = x.numel()
    BLOCK = 256
    nblocks = triton.cdiv(n, BLOCK)
    partials = torch.empty(nblocks, device=x.device, dtype=torch.float32)
    partial_sum_kernel[(nblocks,)](x, partials, n, BLOCK=BLOCK)
    return partials.sum().reshape(1)


def reference(x):
    return x.double().sum().reshape(1)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(1000,), (4097,)]}
