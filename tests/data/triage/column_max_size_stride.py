"""Column maxima, one program per column, the row stride passed as the
number of columns taken from x.shape: each load walks down a column."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_max_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    col = tl.program_id(0)
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for start in range(0, n_rows, BLOCK):
        rows = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + rows * n_cols + col, mask=rows < n_rows, other=float("-inf"))
        acc = tl.maximum(acc, x)
    tl.store(out_ptr + col, tl.max(acc, axis=0))


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, device=x.device, dtype=torch.float32)
    col_max_kernel[(n_cols,)](x, out, n_rows, n_cols, BLOCK=256)
    return out


def reference(x):
    return x.float().amax(dim=0)
