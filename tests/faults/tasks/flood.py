"""A task that writes 80 MiB to every descriptor from 1 to 9 (the reply's included)."""
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


def launch(x):
    chunk = b"{" * (1 << 20)
    for fd in range(1, 10):
        for _ in range(80):
            try:
                os.write(fd, chunk)
            except OSError:
                break
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
