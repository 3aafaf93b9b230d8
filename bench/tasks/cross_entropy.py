"""Per-row cross-entropy of fp32 logits and int64 targets; initial kernel: one program per row, two passes (max, sum of exp) of 1024 columns."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(logits_ptr, target_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = logits_ptr + row * n_cols
    m = -float("inf")
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=-float("inf"))
        s += tl.sum(tl.exp(x - m), axis=0)
    t = tl.load(target_ptr + row)
    x_t = tl.load(x_row + t)
    tl.store(loss_ptr + row, m + tl.log(s) - x_t)


def launch(logits, target):
    n_rows, n_cols = logits.shape
    loss = torch.empty(n_rows, dtype=logits.dtype, device=logits.device)
    cross_entropy_kernel[(n_rows,)](logits, target, loss, n_cols, BLOCK=1024)
    return loss


def reference(logits, target):
    return torch.nn.functional.cross_entropy(logits.double(), target, reduction="none")


def torch_impl(logits, target):
    return torch.nn.functional.cross_entropy(logits, target, reduction="none")


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
    dims, mis = _dims(shape)
    g = torch.Generator(device="cpu").manual_seed(seed)
    logits = _randn(dims, dtype, device, g, int(mis))
    if device == "meta":
        target = torch.empty(dims[0], dtype=torch.int64, device="meta")
    else:
        target = torch.randint(0, dims[1], (dims[0],), generator=g).to(device)
    return (logits, target)


SHAPES = {"bench": (8192, 32000), "check": [(1, 2), (7, 1000), (16, 4096), (5, 5003, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    logits, target = inputs
    return (logits.numel() + logits.shape[0]) * logits.element_size() + target.numel() * 8
