"""Mean of each column of a bf16 matrix; the initial kernel runs one program per 64 columns and walks down one row per step."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def col_mean_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for r in range(0, n_rows):
        acc += tl.load(x_ptr + r * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + cols, (acc / n_rows).to(y_ptr.dtype.element_ty), mask=mask)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_mean_kernel[(triton.cdiv(n_cols, 64),)](x, y, n_rows, n_cols, BLOCK_N=64)
    return y


def reference(x):
    return x.double().mean(dim=0)


def torch_impl(x):
    return x.mean(dim=0)


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


def make_inputs(shape, dtype=torch.bfloat16, device="cuda", seed=0):
    dims, mis = _dims(shape)
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn(dims, dtype, device, g, int(mis)),)


SHAPES = {"bench": (16384, 16384), "check": [(1, 1), (100, 7), (50, 200), (37, 129, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return (x.numel() + x.shape[1]) * x.element_size()
