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
    _tdx_pid_k = tl.program_id(2)
    _tdx_split_k = tl.num_programs(2)
    _tdx_r0 = tl.zeros([64, BLOCK_N], dtype=tl.float32)
    for _vs in range(_tdx_pid_k * 64, n_rows, 64 * _tdx_split_k):
        r = (_vs + tl.arange(0, 64))[:, None]
        _vm = r < (n_rows)
        _tdx_r0 += tl.where(_vm, tl.load(x_ptr + r * n_cols + cols, mask=_vm & (mask), other=0.0).to(tl.float32), 0)
    acc += tl.sum(_tdx_r0, axis=0)
    tl.atomic_add(y_ptr + cols, (acc / n_rows), mask=mask, sem="relaxed")


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    _tdx_acc = y.zero_() if y.dtype == torch.float32 else torch.zeros_like(y, dtype=torch.float32)
    col_mean_kernel[(triton.cdiv(n_cols, 128), 1, 16)](x, _tdx_acc, n_rows, n_cols, BLOCK_N=128)
    if _tdx_acc is not y:
        y.copy_(_tdx_acc)
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
