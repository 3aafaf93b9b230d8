"""Magnitude of interleaved complex numbers (re, im, re, im, ...): each load
reads every second element."""
import torch
import triton
import triton.language as tl


@triton.jit
def complex_abs_kernel(z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    re = tl.load(z_ptr + offs * 2, mask=mask, other=0.0)
    im = tl.load(z_ptr + offs * 2 + 1, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.sqrt(re * re + im * im), mask=mask)


@triton.jit
def complex_abs_2d_kernel(z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # the pair axis is last and contiguous: one 2-element vector per complex
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    pair = tl.arange(0, 2)
    z = tl.load(z_ptr + offs[:, None] * 2 + pair[None, :], mask=offs[:, None] < n, other=0.0)
    tl.store(out_ptr + offs, tl.sqrt(tl.sum(z * z, axis=1)), mask=offs < n)


def launch(z):
    n = z.numel() // 2
    out = torch.empty(n, device=z.device, dtype=z.dtype)
    complex_abs_kernel[(triton.cdiv(n, 1024),)](z, out, n, BLOCK=1024)
    return out


def launch_2d(z):
    n = z.numel() // 2
    out = torch.empty(n, device=z.device, dtype=z.dtype)
    complex_abs_2d_kernel[(triton.cdiv(n, 512),)](z, out, n, BLOCK=512)
    return out
