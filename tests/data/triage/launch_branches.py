"""A launch picked by an if/else (only one of the two runs: they share nothing at run time),
and a second launch after the branch that reads what the first wrote."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, s, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * s, mask=mask)


@triton.jit
def scale_wide_kernel(x_ptr, y_ptr, n, s, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, eviction_policy="evict_first")
    tl.store(y_ptr + offs, x * s, mask=mask)


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def launch(x, s):
    n = x.numel()
    y = torch.empty_like(x)
    out = torch.empty_like(x)
    if n % 4096 == 0:
        scale_wide_kernel[(n // 4096,)](x, y, n, s, BLOCK=4096, num_warps=8)
    elif n > 1024:
        scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, s, BLOCK=1024)
    else:
        scale_kernel[(triton.cdiv(n, 256),)](x, y, n, s, BLOCK=256)
    relu_kernel[(triton.cdiv(n, 1024),)](y, out, n, BLOCK=1024)
    return out
