"""SwiGLU silu(gate) * up on fp16 matrices; the initial kernel runs one program per row, 512 columns at a time."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(g_ptr, u_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        g = tl.load(g_ptr + row * n_cols + offs, mask=mask).to(tl.float32)
        u = tl.load(u_ptr + row * n_cols + offs, mask=mask).to(tl.float32)
        y = g * tl.sigmoid(g) * u
        tl.store(y_ptr + row * n_cols + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def launch(gate, up):
    y = torch.empty_like(gate)
    n_rows, n_cols = gate.shape
    swiglu_kernel[(n_rows,)](gate, up, y, n_cols, BLOCK=512)
    return y


def reference(gate, up):
    return torch.nn.functional.silu(gate.double()) * up.double()


def torch_impl(gate, up):
    return torch.nn.functional.silu(gate) * up


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
    return (_randn(dims, dtype, device, g, int(mis)), _randn(dims, dtype, device, g, int(mis)))


SHAPES = {"bench": (16384, 11008), "check": [(1, 7), (16, 1000), (100, 512), (33, 300, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    gate, up = inputs
    return 3 * gate.numel() * gate.element_size()
