"""Sum of each row of a fp32 matrix; the initial kernel runs one program per row, 1024 columns at a time."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(y_ptr + row, acc)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    row_sum_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=1024)
    return y


def reference(x):
    return x.double().sum(dim=1)


def torch_impl(x):
    return x.sum(dim=1)


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


SHAPES = {"bench": (32768, 8192), "check": [(1, 1), (7, 1000), (64, 1024), (30, 2049, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return (x.numel() + x.shape[0]) * x.element_size()
