"""Sum of each column of a fp32 matrix; the initial kernel runs one program per column, reading 128 rows at a time down the column."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def col_sum_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    acc = 0.0
    for start in range(0, n_rows, BLOCK):
        rows = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows * n_cols + col, mask=rows < n_rows, other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(y_ptr + col, acc)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_sum_kernel[(n_cols,)](x, y, n_rows, n_cols, BLOCK=128)
    return y


def reference(x):
    return x.double().sum(dim=0)


def torch_impl(x):
    return x.sum(dim=0)


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


SHAPES = {"bench": (8192, 32768), "check": [(1, 1), (1000, 7), (300, 64), (129, 45, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return (x.numel() + x.shape[1]) * x.element_size()
