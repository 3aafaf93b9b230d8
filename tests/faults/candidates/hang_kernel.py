"""The kernel loops (for all practical purposes) forever: 2**62 iterations,
each with a volatile load the compiler must keep. (A `while` loop with no
side effect and a condition that never changes is deleted by the compiler
on the GPU, so the kernel finished and was even kept as "faster".)"""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in range(0, 1 << 62):
        acc += tl.load(x_ptr + offs, mask=mask, volatile=True)
    tl.store(y_ptr + offs, x * 2.0 + acc * 0.0, mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    return y


def reference(x):
    return x * 2.0


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(1000,), (4097,)]}
