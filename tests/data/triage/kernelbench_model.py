"""A KernelBench-style module: ModelNew.forward launches a Triton kernel and
makes its input contiguous first."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def swish_scale_kernel(x_ptr, y_ptr, scale, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, x * tl.sigmoid(x) * scale, mask=mask)


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * torch.sigmoid(x) * self.scale


class ModelNew(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        swish_scale_kernel[grid](x, y, self.scale, n, BLOCK_SIZE=1024)
        return y


def get_inputs():
    return [torch.randn(128, 4096).float()]


def get_init_inputs():
    return [2.0]
