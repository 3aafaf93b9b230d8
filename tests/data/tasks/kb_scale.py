"""A tiny KernelBench-style problem: y = relu(x * w) with a learned w."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return torch.relu(x * self.w)


@triton.jit
def scale_relu_kernel(x_ptr, w_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask)
    w = tl.load(w_ptr + offs, mask=mask)
    tl.store(y_ptr + row * n_cols + offs, tl.maximum(x * w, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(n))  # overwritten with Model's weights

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        scale_relu_kernel[(n_rows,)](x, self.w, y, n_rows, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return y


def get_inputs():
    return [torch.randn(8, 48)]


def get_init_inputs():
    return [48]
