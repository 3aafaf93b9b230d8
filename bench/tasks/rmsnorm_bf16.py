"""RMSNorm over the last dim of a bf16 matrix with a weight; the initial kernel runs one program per row, the whole row in one block, in fp32."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * n_cols + offs, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=mask)


def launch(x, weight):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    rmsnorm_kernel[(n_rows,)](x, weight, y, n_cols, 1e-6, BLOCK=triton.next_power_of_2(n_cols))
    return y


def reference(x, weight):
    x = x.double()
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-6) * weight.double()


def torch_impl(x, weight):
    return torch.nn.functional.rms_norm(x, x.shape[-1:], weight, eps=1e-6)


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
    x = _randn(dims, dtype, device, g, int(mis))
    weight = _randn(dims[-1:], dtype, device, g)
    return (x, weight)


SHAPES = {"bench": (65536, 4096), "check": [(1, 7), (9, 1000), (8, 4096), (21, 777, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, weight = inputs
    return (2 * x.numel() + weight.numel()) * x.element_size()
