"""y = x.T, one program per input row: contiguous loads, stores a column
apart (coalesce re-tiles it)."""
import torch
import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
        tl.store(y_ptr + cols * n_rows + row, x, mask=mask)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty((n_cols, n_rows), dtype=x.dtype, device=x.device)
    transpose_kernel[(n_rows,)](x, y, n_rows, n_cols, BLOCK=256)
    return y


def reference(x):
    return x.double().t().contiguous()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (16384, 8192), "check": [(7, 100), (70, 33)]}
