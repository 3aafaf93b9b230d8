"""Running arg-max and arg-min of each row over column blocks: every block is
reduced twice in the loop, to its extreme and to that one's index (TDX021),
next to a loop that also stores each block's own arg-max, whose index must
stay a scalar in the loop."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_argmax_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = -float("inf")
    best_idx = 0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.max(x, axis=0)
        i = tl.argmax(x, axis=0) + start
        best_idx = tl.where(m > best, i, best_idx)
        best = tl.maximum(m, best)
    tl.store(y_ptr + row, best_idx)


@triton.jit
def row_argmin_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lo = float("inf")
    lo_idx = 0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=float("inf"))
        m = tl.min(x, axis=0)
        i = start + tl.argmin(x, axis=0)
        lo_idx = tl.where(lo > m, i, lo_idx)
        lo = tl.minimum(lo, m)
    tl.store(y_ptr + row, lo_idx)


@triton.jit
def block_argmax_kernel(x_ptr, y_ptr, b_ptr, n_cols, stride_row, n_blocks, BLOCK: tl.constexpr):
    # each block's own arg-max is stored as well: the index is read again in the loop
    row = tl.program_id(0)
    best = -float("inf")
    best_idx = 0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.max(x, axis=0)
        i = tl.argmax(x, axis=0) + start
        tl.store(b_ptr + row * n_blocks + start // BLOCK, i)
        best_idx = tl.where(m > best, i, best_idx)
        best = tl.maximum(m, best)
    tl.store(y_ptr + row, best_idx)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.int32)
    row_argmax_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    return y


def launch_min(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.int32)
    row_argmin_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    return y


def launch_blocks(x):
    n_rows, n_cols = x.shape
    n_blocks = triton.cdiv(n_cols, 128)
    y = torch.empty(n_rows, device=x.device, dtype=torch.int32)
    b = torch.empty(n_rows, n_blocks, device=x.device, dtype=torch.int32)
    block_argmax_kernel[(n_rows,)](x, y, b, n_cols, x.stride(0), n_blocks, BLOCK=128)
    return y, b
