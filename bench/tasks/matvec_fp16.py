"""y = A @ x (matrix-vector) in fp16; the initial kernel runs one program per row, a multiply-and-sum over 1024 columns at a time."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, K, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, K, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < K
        a = tl.load(a_ptr + row * K + offs, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        acc += tl.sum(a * x, axis=0)
    tl.store(y_ptr + row, acc.to(y_ptr.dtype.element_ty))


def launch(a, x):
    M, K = a.shape
    y = torch.empty(M, dtype=a.dtype, device=a.device)
    matvec_kernel[(M,)](a, x, y, K, BLOCK=1024)
    return y


def reference(a, x):
    return a.double() @ x.double()


def torch_impl(a, x):
    return a @ x


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
    """shape is (M, K[, "misaligned"])."""
    dims, mis = _dims(shape)
    m, k = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn((m, k), dtype, device, g, int(mis)), _randn((k,), dtype, device, g, int(mis)))


SHAPES = {"bench": (16384, 16384), "check": [(1, 1), (7, 1000), (16, 2048), (33, 1999, "misaligned")]}


def flops(inputs):
    a, _ = inputs
    return 2 * a.numel()


def bytes(inputs):  # noqa: A001 - the task format names it so
    a, x = inputs
    return (a.numel() + x.numel() + a.shape[0]) * a.element_size()
