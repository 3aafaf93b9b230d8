"""Mean of each row of a fp16 matrix; the initial kernel runs one program per row holding the whole row in one block."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def row_mean_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    tl.store(y_ptr + row, mean.to(y_ptr.dtype.element_ty))


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    row_mean_kernel[(n_rows,)](x, y, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return y


def reference(x):
    return x.double().mean(dim=1)


def torch_impl(x):
    return x.mean(dim=1)


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


SHAPES = {"bench": (65536, 4096), "check": [(1, 1), (9, 1000), (8, 4096), (40, 333, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    return (x.numel() + x.shape[0]) * x.element_size()
