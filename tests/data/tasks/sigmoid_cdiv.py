"""Sigmoid through tl.sigmoid and tl.cdiv: both are @triton.jit functions of
tl.standard, so the interpreter must run them as interpreted device calls."""
import torch
import triton
import triton.language as tl


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    nb = tl.cdiv(n, BLOCK)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.sigmoid(x) + nb * 0, mask=m)


def launch(x):
    y = torch.empty_like(x)
    sigmoid_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y


def reference(x):
    return torch.sigmoid(x.double())


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (4096,), "check": [(100,)]}
