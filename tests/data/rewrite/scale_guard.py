"""Scale a vector, programs past the end returning early: an early return
would end a persistent program's remaining tiles, so persistent-grid must
leave this kernel alone."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_guard_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3.0, mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n = x.numel()
    scale_guard_kernel[(triton.cdiv(n, 128) + 1,)](x, y, n, BLOCK=128)
    return y


def reference(x):
    return x * 3.0


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (1 << 24,), "check": [(1000,)]}
