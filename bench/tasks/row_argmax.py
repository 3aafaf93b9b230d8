"""Index of the maximum of each row of a fp32 matrix; the initial kernel runs one program per row, 1024 columns at a time."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def row_argmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = -float("inf")
    best_idx = 0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.max(x, axis=0)
        i = tl.argmax(x, axis=0) + start
        # strictly greater keeps the first index on ties, as torch.argmax does
        best_idx = tl.where(m > best, i, best_idx)
        best = tl.maximum(m, best)
    tl.store(y_ptr + row, best_idx.to(tl.int64))


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, dtype=torch.int64, device=x.device)
    row_argmax_kernel[(n_rows,)](x, y, n_cols, BLOCK=1024)
    return y


def reference(x):
    return torch.argmax(x, dim=1)


def torch_impl(x):
    return torch.argmax(x, dim=1)


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


SHAPES = {"bench": (32768, 8192), "check": [(4, 17), (6, 1000), (32, 2048), (19, 3001, "misaligned")]}
TOLERANCE = 1e-9  # indices: any wrong one is far above this


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return x.numel() * x.element_size() + x.shape[0] * 8
