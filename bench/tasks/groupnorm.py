"""GroupNorm of fp32 NCHW with per-channel weight and bias; initial kernel: one program per (sample, group), three passes of 1024 elements."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def groupnorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, HW, num_groups, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n = pid // num_groups
    grp = pid % num_groups
    cpg = C // num_groups
    group_size = cpg * HW
    base = n * C * HW + grp * group_size
    acc = 0.0
    for start in range(0, group_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.sum(tl.load(x_ptr + base + offs, mask=offs < group_size, other=0.0), axis=0)
    mean = acc / group_size
    acc = 0.0
    for start in range(0, group_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < group_size, other=0.0)
        d = tl.where(offs < group_size, x - mean, 0.0)
        acc += tl.sum(d * d, axis=0)
    rstd = 1.0 / tl.sqrt(acc / group_size + eps)
    for start in range(0, group_size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < group_size
        ch = grp * cpg + offs // HW
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0)
        w = tl.load(w_ptr + ch, mask=mask)
        b = tl.load(b_ptr + ch, mask=mask)
        tl.store(y_ptr + base + offs, (x - mean) * rstd * w + b, mask=mask)


def launch(x, weight, bias, num_groups):
    n, c, h, w = x.shape
    y = torch.empty_like(x)
    groupnorm_kernel[(n * num_groups,)](x, weight, bias, y, c, h * w, num_groups, 1e-5, BLOCK=1024)
    return y


def reference(x, weight, bias, num_groups):
    return torch.nn.functional.group_norm(x.double(), num_groups, weight.double(), bias.double(), eps=1e-5)


def torch_impl(x, weight, bias, num_groups):
    return torch.nn.functional.group_norm(x, num_groups, weight, bias, eps=1e-5)


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
    """shape is (N, C, H, W, groups[, "misaligned"])."""
    dims, mis = _dims(shape)
    n, c, h, w, groups = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = _randn((n, c, h, w), dtype, device, g, int(mis))
    weight = _randn((c,), dtype, device, g)
    bias = _randn((c,), dtype, device, g)
    return (x, weight, bias, groups)


SHAPES = {"bench": (32, 256, 128, 128, 32),
          "check": [(1, 4, 1, 1, 2), (2, 6, 7, 9, 3), (3, 32, 16, 16, 8), (2, 10, 13, 11, 5, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, weight, bias, _ = inputs
    return (2 * x.numel() + 2 * weight.numel()) * x.element_size()
