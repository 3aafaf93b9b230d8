"""Sum of all elements of a fp32 vector; initial kernel: 1024 elements per program, partial sums added with tl.atomic_add."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))


def launch(x):
    out = torch.zeros(1, dtype=x.dtype, device=x.device)
    n = x.numel()
    sum_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def reference(x):
    return x.double().sum().reshape(1)


def torch_impl(x):
    return x.sum().reshape(1)


def _dims(shape):
    """The integer sizes of `shape`, and whether it ends with the flag "misaligned"."""
    return tuple(int(d) for d in shape if d != "misaligned"), "misaligned" in shape


def _randn(dims, dtype, device, g, offset=0):
    """Normal values drawn on the CPU (the same on every device); with offset=1 a view one
    element into its buffer, so the data pointer is not 16-byte aligned."""
    if device == "meta":
        return torch.empty(dims, dtype=dtype, device="meta")
    buf = torch.randn(math.prod(dims) + offset, generator=g).to(dtype).to(device)
    return buf[offset:].view(dims)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    dims, mis = _dims(shape)
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn(dims, dtype, device, g, int(mis)),)


SHAPES = {"bench": (268435456,), "check": [(1,), (1000,), (65536,), (4097, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return (x.numel() + 1) * x.element_size()
