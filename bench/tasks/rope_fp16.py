"""Rotary embedding (rotate-half) of fp16 (B, S, H, D) with fp32 cos/sin tables; initial kernel: one program per (batch, position, head)."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def rope_kernel(x_ptr, cos_ptr, sin_ptr, y_ptr, S, H, HALF: tl.constexpr):
    pid = tl.program_id(0)
    s = (pid // H) % S
    offs = tl.arange(0, HALF)
    base = pid * 2 * HALF
    x1 = tl.load(x_ptr + base + offs).to(tl.float32)
    x2 = tl.load(x_ptr + base + HALF + offs).to(tl.float32)
    c = tl.load(cos_ptr + s * HALF + offs)
    sn = tl.load(sin_ptr + s * HALF + offs)
    tl.store(y_ptr + base + offs, (x1 * c - x2 * sn).to(y_ptr.dtype.element_ty))
    tl.store(y_ptr + base + HALF + offs, (x2 * c + x1 * sn).to(y_ptr.dtype.element_ty))


def launch(x, cos, sin):
    B, S, H, D = x.shape
    y = torch.empty_like(x)
    rope_kernel[(B * S * H,)](x, cos, sin, y, S, H, HALF=D // 2)
    return y


def reference(x, cos, sin):
    x = x.double()
    half = x.shape[-1] // 2
    c = cos.double()[None, :, None, :]
    s = sin.double()[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


def torch_impl(x, cos, sin):
    half = x.shape[-1] // 2
    c = cos[None, :, None, :]
    s = sin[None, :, None, :]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).to(x.dtype)


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
    """shape is (batch, seq_len, heads, head_dim[, "misaligned"]); head_dim/2 a power of two."""
    dims, mis = _dims(shape)
    _, s, _, d = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = _randn(dims, dtype, device, g, int(mis))
    if device == "meta":
        cos = torch.empty((s, d // 2), dtype=torch.float32, device="meta")
        return (x, cos, torch.empty_like(cos))
    # the usual tables (base 10000) for positions from a random start, as with a cache offset
    start = int(torch.randint(0, 1 << 16, (1,), generator=g).item())
    pos = torch.arange(start, start + s, dtype=torch.float64)
    inv_freq = 10000.0 ** (-torch.arange(0, d // 2, dtype=torch.float64) * 2 / d)
    ang = pos[:, None] * inv_freq[None, :]
    return (x, ang.cos().float().to(device), ang.sin().float().to(device))


SHAPES = {"bench": (8, 4096, 32, 128),
          "check": [(1, 1, 1, 2), (1, 7, 3, 16), (2, 17, 3, 64), (1, 5, 3, 128, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, cos, sin = inputs
    return 2 * x.numel() * x.element_size() + 2 * cos.numel() * cos.element_size()
