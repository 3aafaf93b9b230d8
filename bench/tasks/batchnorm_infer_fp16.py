"""Inference BatchNorm of fp16 NCHW with fp32 per-channel stats; initial kernel: flat, 1024 elements per program, four gathers per element."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def batchnorm_kernel(x_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, y_ptr, n, C, HW, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = (offs // HW) % C
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    mean = tl.load(mean_ptr + c, mask=mask)
    var = tl.load(var_ptr + c, mask=mask)
    w = tl.load(w_ptr + c, mask=mask)
    b = tl.load(b_ptr + c, mask=mask)
    y = (x - mean) / tl.sqrt(var + eps) * w + b
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def launch(x, mean, var, weight, bias):
    N, C, H, W = x.shape
    y = torch.empty_like(x)
    n = x.numel()
    batchnorm_kernel[(triton.cdiv(n, 1024),)](x, mean, var, weight, bias, y, n, C, H * W, 1e-5, BLOCK=1024)
    return y


def reference(x, mean, var, weight, bias):
    return torch.nn.functional.batch_norm(x.double(), mean.double(), var.double(), weight.double(),
                                          bias.double(), training=False, eps=1e-5)


def torch_impl(x, mean, var, weight, bias):
    return torch.nn.functional.batch_norm(x, mean, var, weight, bias, training=False, eps=1e-5)


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
    """shape is (N, C, H, W[, "misaligned"])."""
    dims, mis = _dims(shape)
    c = dims[1]
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = _randn(dims, dtype, device, g, int(mis))
    mean = _randn((c,), torch.float32, device, g)
    var = _randn((c,), torch.float32, device, g)
    if device != "meta":
        var = var.abs() + 0.5  # a variance is positive
    weight = _randn((c,), torch.float32, device, g)
    bias = _randn((c,), torch.float32, device, g)
    return (x, mean, var, weight, bias)


SHAPES = {"bench": (64, 128, 128, 128),
          "check": [(1, 1, 1, 1), (2, 3, 5, 7), (4, 16, 16, 16), (3, 5, 9, 13, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, mean = inputs[0], inputs[1]
    return 2 * x.numel() * x.element_size() + 4 * mean.numel() * 4
