"""Polynomial evaluation by Horner's rule: the loop over a handful of
coefficients loads one scalar each, which is fine (the data are vectors)."""
import torch
import triton
import triton.language as tl


@triton.jit
def horner_kernel(x_ptr, coef_ptr, y_ptr, n, DEGREE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.static_range(DEGREE + 1):
        c = tl.load(coef_ptr + DEGREE - i)
        acc = acc * x + c
    tl.store(y_ptr + offs, acc, mask=mask)


def launch(x, coef):
    y = torch.empty_like(x)
    n = x.numel()
    horner_kernel[(triton.cdiv(n, 1024),)](x, coef, y, n, DEGREE=coef.numel() - 1, BLOCK=1024)
    return y
