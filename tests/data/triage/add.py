"""Sum of two vectors, one block of 1024 elements per program, launched on a
grid computed by a lambda from the block size."""
import torch
import triton
import triton.language as tl


@triton.jit
def vec_add_kernel(a_ptr, b_ptr, c_ptr, numel, BLOCK: tl.constexpr):
    start = tl.program_id(axis=0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    inside = idx < numel
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(c_ptr + idx, a + b, mask=inside)


def launch(a, b):
    c = torch.empty_like(a)
    numel = c.numel()
    grid = lambda meta: (triton.cdiv(numel, meta["BLOCK"]),)
    vec_add_kernel[grid](a, b, c, numel, BLOCK=1024)
    return c


def reference(a, b):
    return a + b
