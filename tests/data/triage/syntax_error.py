import triton
import triton.language as tl


@triton.jit
def broken_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK
    tl.store(x_ptr + offs, 0, mask=offs < n)
