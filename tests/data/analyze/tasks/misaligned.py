"""z = x + y on views that start one element into their storage, with an
odd length: the pointers are not 16-byte aligned AND the bound is not a
multiple of 16. Adding divisibility to one pointer alone cannot vectorize
the masked accesses, so that hypothesis must come back refuted."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, x + y, mask=mask)


def launch(x, y):
    z = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)
    return z


def reference(x, y):
    return x + y


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    (n,) = shape
    x = torch.randn(n + 1, generator=g, dtype=torch.float32).to(dtype).to(device)[1:]
    y = torch.randn(n + 1, generator=g, dtype=torch.float32).to(dtype).to(device)[1:]
    return x, y


SHAPES = {"bench": (4099,), "check": [(1001,)]}
