"""Several kernels sharing jit helpers, launched on 2-D grids through lambdas."""
import torch
import triton
import triton.language as tl


@triton.jit
def _tanh(x):
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def _gelu_tanh(x):
    return 0.5 * x * (1 + _tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


@triton.jit
def bias_gelu_kernel(x_ptr, b_ptr, y_ptr, M, N, stride_xm, stride_ym,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    y = _gelu_tanh(x.to(tl.float32) + b[None, :])
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], y, mask=mask)


@triton.jit
def residual_add_kernel(x_ptr, r_ptr, y_ptr, M, N, stride_m,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rm[:, None] * stride_m + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.load(r_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x + r, mask=mask)


def bias_gelu(x, b):
    M, N = x.shape
    y = torch.empty_like(x)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    bias_gelu_kernel[grid](x, b, y, M, N, x.stride(0), y.stride(0), BLOCK_M=16, BLOCK_N=128)
    return y


def residual_add(x, r):
    M, N = x.shape
    y = torch.empty_like(x)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    residual_add_kernel[grid](x, r, y, M, N, x.stride(0), BLOCK_M=8, BLOCK_N=256)
    return y
