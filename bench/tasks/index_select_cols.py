"""out = x[:, idx], columns of a fp32 matrix by an int64 index; initial kernel: one program per row, 256 selected columns at a time."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def index_select_kernel(x_ptr, idx_ptr, out_ptr, N, J, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, J, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < J
        cols = tl.load(idx_ptr + offs, mask=mask, other=0)
        v = tl.load(x_ptr + row * N + cols, mask=mask)
        tl.store(out_ptr + row * J + offs, v, mask=mask)


def launch(x, idx):
    M, N = x.shape
    J = idx.shape[0]
    out = torch.empty((M, J), dtype=x.dtype, device=x.device)
    index_select_kernel[(M,)](x, idx, out, N, J, BLOCK=256)
    return out


def reference(x, idx):
    return torch.index_select(x.double(), 1, idx)


def torch_impl(x, idx):
    return torch.index_select(x, 1, idx)


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
    """shape is (rows, cols, selected[, "misaligned"])."""
    dims, mis = _dims(shape)
    m, n, j = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = _randn((m, n), dtype, device, g, int(mis))
    if device == "meta":
        idx = torch.empty(j, dtype=torch.int64, device="meta")
    else:
        idx = torch.randint(0, n, (j,), generator=g).to(device)
    return (x, idx)


SHAPES = {"bench": (16384, 8192, 4096),
          "check": [(1, 1, 1), (7, 100, 30), (64, 512, 300), (33, 257, 129, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, idx = inputs
    return (x.numel() + x.shape[0] * idx.shape[0]) * x.element_size() + idx.numel() * 8
