"""Layer norm written as three passes over each row (mean, variance,
normalise), with the mask bound to a name in the last pass and a bias
shifted away from zero (single-pass-reduction)."""
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        acc += tl.sum(x, axis=0)
    mean = acc / n_cols
    var = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
        d = tl.where(offs < n_cols, x - mean, 0.0)
        var += tl.sum(d * d, axis=0)
    rstd = 1.0 / tl.sqrt(var / n_cols + eps)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=mask)
        b = tl.load(b_ptr + offs, mask=mask)
        tl.store(y_row + offs, ((x - mean) * rstd * w + b).to(y_row.dtype.element_ty), mask=mask)


def launch(x, weight, bias):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    layernorm_kernel[(n_rows,)](x, weight, bias, y, n_cols, x.stride(0), 1e-5, BLOCK=64)
    return y


def reference(x, weight, bias):
    n = x.shape[-1]
    return torch.nn.functional.layer_norm(x.double(), (n,), weight.double(), bias.double(), eps=1e-5)


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = (torch.randn(shape, generator=g) + 3.0).to(dtype)
    weight = torch.randn(shape[-1:], generator=g).to(dtype)
    bias = torch.randn(shape[-1:], generator=g).to(dtype)
    return (x.to(device), weight.to(device), bias.to(device))


SHAPES = {"bench": (32768, 4096), "check": [(3, 8), (5, 300), (2, 129)]}
