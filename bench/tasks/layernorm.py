"""LayerNorm of fp16 rows with weight and bias; initial kernel: one program per row, three passes (mean, variance, normalise) of 1024 columns."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        acc += tl.sum(x, axis=0)
    mean = acc / n_cols
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        d = tl.where(offs < n_cols, x - mean, 0.0)
        acc += tl.sum(d * d, axis=0)
    rstd = 1.0 / tl.sqrt(acc / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
        tl.store(y_row + offs, ((x - mean) * rstd * w + b).to(y_row.dtype.element_ty), mask=mask)


def launch(x, weight, bias):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    layernorm_kernel[(n_rows,)](x, weight, bias, y, n_cols, 1e-5, BLOCK=1024)
    return y


def reference(x, weight, bias):
    n = x.shape[-1]
    return torch.nn.functional.layer_norm(x.double(), (n,), weight.double(), bias.double(), eps=1e-5)


def torch_impl(x, weight, bias):
    return torch.nn.functional.layer_norm(x, x.shape[-1:], weight, bias, eps=1e-5)


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
    weight = _randn(dims[-1:], dtype, device, g)
    bias = _randn(dims[-1:], dtype, device, g)
    return (x, weight, bias)


SHAPES = {"bench": (32768, 4096), "check": [(1, 8), (9, 1000), (32, 2048), (20, 1537, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, weight, bias = inputs
    return (2 * x.numel() + 2 * weight.numel()) * x.element_size()
