"""Row sums: one program per row, the whole row in one block."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(x.to(tl.float32), axis=0))


@triton.jit
def row_max_kernel(x_ptr, out_ptr, idx_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))
    tl.store(idx_ptr + row, tl.argmax(x, axis=0))


def launch(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    BLOCK = triton.next_power_of_2(n_cols)
    row_sum_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK=BLOCK)
    return out


def launch_max(x):
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    idx = torch.empty(n_rows, device=x.device, dtype=torch.int32)
    row_max_kernel[(n_rows,)](x, out, idx, n_cols, x.stride(0),
                              BLOCK=triton.next_power_of_2(n_cols))
    return out, idx
