"""Dropout (p = 0.1) of a fp32 vector with a tl.rand mask; initial kernel: 1024 elements per program; the reference recomputes Triton's Philox."""
import math

import torch
import triton
import triton.language as tl

P = 0.1


@triton.jit
def dropout_kernel(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    y = tl.where(r > p, x / (1 - p), 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


def launch(x, seed):
    y = torch.empty_like(x)
    n = x.numel()
    dropout_kernel[(triton.cdiv(n, 1024),)](x, y, n, P, seed, BLOCK=1024)
    return y


# tl.rand(seed, offset) for an int32 offset and a seed below 2**31 is 10 rounds of
# Philox-4x32 on the counter (offset, 0, 0, 0) with the key (seed, 0); its first word,
# read as int32, is folded to [0, 2**31) and scaled to [0, 1) in fp32
# (triton/language/random.py). Integer math below is on int64 kept to 32 bits.
_M32 = 0xFFFFFFFF


def _mulhilo(a, b):
    """High and low 32-bit words of the 64-bit product of a uint32 tensor by a constant."""
    a_hi, a_lo = a >> 16, a & 0xFFFF
    b_hi, b_lo = b >> 16, b & 0xFFFF
    lo_lo = a_lo * b_lo
    mid = a_hi * b_lo + a_lo * b_hi
    hi = a_hi * b_hi + ((mid + (lo_lo >> 16)) >> 16)
    lo = (a * b) & _M32
    return hi & _M32, lo


def _philox_uniform(seed, n, device):
    """The values tl.rand(seed, arange(n)) produces, as a fp32 tensor."""
    c0 = torch.arange(n, dtype=torch.int64, device=device)
    c1 = torch.zeros_like(c0)
    c2 = torch.zeros_like(c0)
    c3 = torch.zeros_like(c0)
    k0, k1 = seed & _M32, (seed >> 32) & _M32
    for _ in range(10):
        hi_b, lo_b = _mulhilo(c2, 0xCD9E8D57)
        hi_a, lo_a = _mulhilo(c0, 0xD2511F53)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0 = (k0 + 0x9E3779B9) & _M32
        k1 = (k1 + 0xBB67AE85) & _M32
    r = torch.where(c0 >= 2**31, c0 - 2**32, c0)  # as int32
    r = torch.where(r < 0, -r - 1, r).to(torch.int32)
    return r.to(torch.float32) * torch.tensor(4.6566127342e-10, dtype=torch.float32)


def reference(x, seed):
    keep = _philox_uniform(seed, x.numel(), x.device).view(x.shape) > torch.tensor(P, dtype=torch.float32)
    return torch.where(keep, x.double() / (1 - P), torch.zeros((), dtype=torch.float64))


# F.dropout draws its own mask: compared by distribution, not element by element
TORCH_IMPL_RANDOM = True


def torch_impl(x, seed):
    return torch.nn.functional.dropout(x, p=P, training=True)


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
    x = _randn(dims, dtype, device, g, int(mis))
    mask_seed = int(torch.randint(0, 2**31 - 1, (1,), generator=g).item())
    return (x, mask_seed)


SHAPES = {"bench": (134217728,), "check": [(1,), (1000,), (65536,), (4099, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, _ = inputs
    return 2 * x.numel() * x.element_size()
