"""One program per row of at most 64 elements, masked at the row's end: the
mask of each load and store is kept and joined with the folded rows' own."""
import torch
import triton
import triton.language as tl


@triton.jit
def shift_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, tl.where(x > 0, x - 1.0, x + 1.0), mask=mask)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    shift_rows_kernel[(n_rows,)](x, y, n_cols, BLOCK=triton.next_power_of_2(n_cols))
    return y


def reference(x):
    x = x.double()
    return torch.where(x > 0, x - 1.0, x + 1.0)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (1 << 20, 48), "check": [(1, 1), (7, 48), (33, 5)]}
