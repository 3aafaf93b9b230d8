"""Scale a vector with a kernel that is already autotuned: the autotune
family must leave it alone."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({}, num_warps=4), triton.Config({}, num_warps=8)], key=['n'])
@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * SCALE, mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64, SCALE=2.0)
    return y


def reference(x):
    return x * 2.0


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(1000,), (4097,)]}
