"""Column sums with a block accumulator, one program per column; the column
count is not a kernel argument (coalesce passes it as one)."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_sum_kernel(x_ptr, out_ptr, n_rows, stride_row, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        rows = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows * stride_row + col, mask=rows < n_rows, other=0.0)
        acc += x.to(tl.float32)
    tl.store(out_ptr + col, tl.sum(acc, axis=0))


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, device=x.device, dtype=torch.float32)
    col_sum_kernel[(n_cols,)](x, out, n_rows, x.stride(0), BLOCK=256)
    return out


def reference(x):
    return x.double().sum(dim=0)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (8192, 32768), "check": [(300, 7), (65, 130)]}
