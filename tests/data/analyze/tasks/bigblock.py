"""A 4096-element row held by one warp: 128 fp32 values per thread per live
tensor, far past the registers, so ptxas spills. With 4 warps it does not."""
import torch
import triton
import triton.language as tl


@triton.jit
def bigblock_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + offs)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    s = tl.sum(e, axis=0)
    t = tl.sum(e * x, axis=0)
    tl.store(y_ptr + row * BLOCK + offs, e / s + x * t)


def launch(x):
    y = torch.empty_like(x)
    bigblock_kernel[(x.shape[0],)](x, y, BLOCK=x.shape[1], num_warps=1)
    return y


def reference(x):
    xd = x.double()
    e = torch.exp(xd - xd.max(dim=1, keepdim=True).values)
    s = e.sum(dim=1, keepdim=True)
    t = (e * xd).sum(dim=1, keepdim=True)
    return (e / s + xd * t).float()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (32, 4096), "check": [(2, 4096)]}
