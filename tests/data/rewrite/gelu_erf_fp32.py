"""Exact GELU of an fp32 vector through tl.erf (the short spelling), with a
helper for the tail: erf-polynomial must pass the fp32 check (1e-5)."""
import torch
import triton
import triton.language as tl


@triton.jit
def half_x(x):
    return 0.5 * x


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, half_x(x) * (1.0 + tl.erf(x * 0.7071067811865476)), mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n = x.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


def reference(x):
    return torch.nn.functional.gelu(x.double())


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (3 * torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(1000,), (4097,)]}
