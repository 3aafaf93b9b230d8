"""gelu_tanh(x + bias) with a per-column bias on fp16; the initial kernel runs one program per row, 256 columns at a time."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * n_cols + offs, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
        v = x + b
        # tanh(u) = 2 * sigmoid(2u) - 1
        u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
        y = 0.5 * v * (1.0 + t)
        tl.store(y_ptr + row * n_cols + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def launch(x, bias):
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    bias_gelu_kernel[(n_rows,)](x, bias, y, n_cols, BLOCK=256)
    return y


def reference(x, bias):
    return torch.nn.functional.gelu(x.double() + bias.double(), approximate="tanh")


def torch_impl(x, bias):
    return torch.nn.functional.gelu(x + bias, approximate="tanh")


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
    x = _randn(dims, dtype, device, g, int(mis))
    bias = _randn(dims[-1:], dtype, device, g, int(mis))
    return (x, bias)


SHAPES = {"bench": (32768, 4096), "check": [(1, 3), (40, 768), (128, 256), (17, 1001, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, bias = inputs
    return (2 * x.numel() + bias.numel()) * x.element_size()
