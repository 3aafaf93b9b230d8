"""Vector addition with a block of 64 elements: half a thread's worth per warp."""
import torch
import triton
import triton.language as tl


@triton.jit
def sum_kernel(u_ptr, v_ptr, w_ptr, total, BLOCK_SIZE: tl.constexpr):
    i = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    keep = i < total
    u = tl.load(u_ptr + i, mask=keep)
    v = tl.load(v_ptr + i, mask=keep)
    w = u + v
    tl.store(w_ptr + i, w, mask=keep)


@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n_elements, BLOCK: tl.constexpr = 32):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
    tl.store(out_ptr + offs, x * alpha, mask=offs < n_elements)


def launch(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    sum_kernel[(triton.cdiv(n, 64),)](
        x, y, out, n,
        BLOCK_SIZE=64,
    )
    return out


def launch_scale(x, alpha):
    out = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 32),)](x, out, alpha, n)
    return out
