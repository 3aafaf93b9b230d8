"""z = x * y on fp16 vectors; the initial kernel uses one program per 512-element block."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def mul_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, x * y, mask=mask)


def launch(x, y):
    z = torch.empty_like(x)
    n = x.numel()
    mul_kernel[(triton.cdiv(n, 512),)](x, y, z, n, BLOCK=512)
    return z


def reference(x, y):
    return x.double() * y.double()


def torch_impl(x, y):
    return x * y


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


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    dims, mis = _dims(shape)
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn(dims, dtype, device, g, int(mis)), _randn(dims, dtype, device, g, int(mis)))


SHAPES = {"bench": (134217728,), "check": [(7,), (1000,), (65535,), (4099, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, y = inputs
    return 3 * x.numel() * x.element_size()
