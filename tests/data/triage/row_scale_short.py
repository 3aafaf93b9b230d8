"""row_scale_flat with rows of 16 elements at the bench shape, under blocks of 64: a grid of
rows would idle three lanes in four, so TDX027 stays quiet."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, y_ptr, n, L, BLOCK: tl.constexpr):
    offs = BLOCK * tl.program_id(0) + tl.arange(0, BLOCK)
    row = offs // L
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    s = tl.load(s_ptr + row, mask=offs < n, other=1.0)
    tl.store(y_ptr + offs, x * s, mask=offs < n)


def launch(x, s):
    rows, length = x.shape
    y = torch.empty_like(x)
    n = x.numel()
    row_scale_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, s, y, n, length, BLOCK=64)
    return y


def reference(x, s):
    return x * s[:, None]


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    rows, length = shape
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),
            torch.randn((rows,), generator=g, dtype=dtype).to(device))


SHAPES = {"bench": (1 << 20, 16), "check": [(1, 1), (3, 100), (37, 65), (5, 64)]}
