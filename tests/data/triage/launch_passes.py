"""A GELU whose launch converts the input to fp32, forces contiguity and
converts the result back: three extra full passes over memory."""
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


def launch(x):
    xf = x.contiguous().float()
    y = torch.empty_like(xf)
    n = xf.numel()
    gelu_kernel[(triton.cdiv(n, 1024),)](xf, y, n, BLOCK=1024)
    return y.to(x.dtype)


def reference(x):
    return torch.nn.functional.gelu(x.float()).to(x.dtype)
