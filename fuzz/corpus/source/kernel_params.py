import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n: int, BLOCK: tl.constexpr = 1024, *, EVEN: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc: tl.float32 = x
    acc += tl.load(y_ptr + offs, mask=mask)
    a, b = acc, x
    tl.store(out_ptr + offs, a + b, mask=mask)
