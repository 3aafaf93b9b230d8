"""Prefix sums along rows: tl.cumsum, and a first-order linear recurrence
through tl.associative_scan with a combine function."""
import torch
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride_row + cols, tl.cumsum(x, axis=0), mask=mask)


@triton.jit
def _recurrence_combine(a1, b1, a2, b2):
    return a1 * a2, b1 * a2 + b2


@triton.jit
def linear_recurrence_kernel(a_ptr, b_ptr, h_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    a = tl.load(a_ptr + row * stride_row + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + row * stride_row + cols, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, b), axis=0, combine_fn=_recurrence_combine)
    tl.store(h_ptr + row * stride_row + cols, h, mask=mask)


def launch(x):
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    cumsum_kernel[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=triton.next_power_of_2(n_cols))
    return y


def launch_recurrence(a, b):
    h = torch.empty_like(a)
    n_rows, n_cols = a.shape
    linear_recurrence_kernel[(n_rows,)](a, b, h, n_cols, a.stride(0),
                                        BLOCK=triton.next_power_of_2(n_cols))
    return h
