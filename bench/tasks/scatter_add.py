"""out = zeros(V, D).index_add_(0, idx, src) in fp32; initial kernel: one program per source row, tl.atomic_add over 256 columns."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def scatter_add_kernel(src_ptr, idx_ptr, out_ptr, D, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    dst = tl.load(idx_ptr + t)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < D
        v = tl.load(src_ptr + t * D + offs, mask=mask)
        tl.atomic_add(out_ptr + dst * D + offs, v, mask=mask)


def launch(src, idx, num_rows):
    T, D = src.shape
    out = torch.zeros((num_rows, D), dtype=src.dtype, device=src.device)
    scatter_add_kernel[(T,)](src, idx, out, D, BLOCK=256)
    return out


def reference(src, idx, num_rows):
    out = torch.zeros((num_rows, src.shape[1]), dtype=torch.float64, device=src.device)
    return out.index_add_(0, idx, src.double())


def torch_impl(src, idx, num_rows):
    return torch.zeros((num_rows, src.shape[1]), dtype=src.dtype, device=src.device).index_add_(0, idx, src)


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
    """shape is (source rows, destination rows, dim[, "misaligned"])."""
    dims, mis = _dims(shape)
    t, v, d = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    src = _randn((t, d), dtype, device, g, int(mis))
    if device == "meta":
        idx = torch.empty(t, dtype=torch.int64, device="meta")
    else:
        idx = torch.randint(0, v, (t,), generator=g).to(device)
    return (src, idx, v)


SHAPES = {"bench": (262144, 4096, 512),
          "check": [(1, 1, 1), (100, 7, 33), (500, 50, 64), (65, 10, 300, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    src, idx, v = inputs
    return (src.numel() + v * src.shape[1]) * src.element_size() + idx.numel() * 8
