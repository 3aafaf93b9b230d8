"""Maximum of each column of a fp16 matrix; the initial kernel runs one program per 32 columns over 32-row tiles."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def col_max_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.full((BLOCK_N,), -float("inf"), dtype=tl.float32)
    tl.static_assert(x_ptr.dtype.element_ty.is_floating())
    _tdx_r0 = tl.full([BLOCK_M, BLOCK_N], float("-inf"), tl.float32).to(x_ptr.dtype.element_ty)
    for start in range(0, n_rows, BLOCK_M):
        rows = start + tl.arange(0, BLOCK_M)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * n_cols + cols[None, :], mask=mask, other=-float("inf"))
        _tdx_r0 = tl.maximum(_tdx_r0, x)
    acc = tl.maximum(acc, tl.max(_tdx_r0, axis=0).to(tl.float32))
    tl.store(y_ptr + cols, acc.to(y_ptr.dtype.element_ty), mask=cols < n_cols)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_max_kernel[(triton.cdiv(n_cols, 32),)](x, y, n_rows, n_cols, BLOCK_M=32, BLOCK_N=32)
    return y


def reference(x):
    return x.double().amax(dim=0)


def torch_impl(x):
    return x.amax(dim=0)


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
    return (_randn(dims, dtype, device, g, int(mis)),)


SHAPES = {"bench": (16384, 16384), "check": [(1, 1), (1000, 5), (128, 256), (77, 99, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return (x.numel() + x.shape[1]) * x.element_size()
