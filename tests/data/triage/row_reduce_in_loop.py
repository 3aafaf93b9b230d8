"""Row reductions over column blocks that reduce every block to a scalar in
the loop (TDX021), next to loops where that cannot be deferred: a running
sum read inside the loop, and an integer count."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=0.0)
        acc += tl.sum(x, axis=0)
    tl.store(y_ptr + row, acc)


@triton.jit
def row_max_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = -float("inf")
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=-float("inf"))
        m = tl.maximum(tl.max(x, axis=0), m)
    tl.store(y_ptr + row, m)


@triton.jit
def block_sum_kernel(x_ptr, y_ptr, n_rows, n_cols, stride_row, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    # the sum of a band of ROWS rows, a 2-D tile at a time
    band = tl.program_id(0)
    rows = band * ROWS + tl.arange(0, ROWS)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        x = tl.load(x_ptr + rows[:, None] * stride_row + cols[None, :], mask=mask, other=0.0)
        total = total + tl.sum(x)
    tl.store(y_ptr + band, total)


@triton.jit
def running_sum_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    # the running sum is stored after every block: it must stay a scalar in the loop
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=0.0)
        acc += tl.sum(x, axis=0)
        tl.store(y_ptr + row * stride_row + offs, x / acc, mask=offs < n_cols)


@triton.jit
def count_positive_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    # an integer count: a float accumulator would change its type
    row = tl.program_id(0)
    count = 0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_row + offs, mask=offs < n_cols, other=0.0)
        count += tl.sum((x > 0).to(tl.int32), axis=0)
    tl.store(y_ptr + row, count)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_sum_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    return y


def launch_max(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.float32)
    row_max_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    return y


def launch_bands(x):
    n_rows, n_cols = x.shape
    bands = triton.cdiv(n_rows, 8)
    y = torch.empty(bands, device=x.device, dtype=torch.float32)
    block_sum_kernel[(bands,)](x, y, n_rows, n_cols, x.stride(0), ROWS=8, BLOCK=64)
    return y


def launch_running(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    running_sum_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    return y


def launch_count(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_rows, device=x.device, dtype=torch.int32)
    count_positive_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=128)
    return y
