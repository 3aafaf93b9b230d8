"""C = A @ B for square fp32 matrices (tf32 dot, B N-contiguous); a plain 64x64x32 tiled tl.dot loop on a 2-D grid held in a variable, default num_warps and stages."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return c


def reference(a, b):
    return a.double() @ b.double()


def _dims(shape):
    """The integer sizes of `shape`, and whether it ends with the flag "misaligned"."""
    return tuple(int(d) for d in shape if d != "misaligned"), "misaligned" in shape


def _randn(dims, dtype, device, g, offset=0):
    """Normal values drawn on the CPU (the same on every device); with offset=1 a view one
    element into its buffer, so the data pointer is not 16-byte aligned."""
    if device == "meta":
        return torch.empty(dims, dtype=dtype, device="meta")
    buf = torch.randn(math.prod(dims) + offset, generator=g).to(dtype).to(device)
    return buf[offset:].view(dims)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    """shape is (M, N, K[, "misaligned"])."""
    dims, mis = _dims(shape)
    m, n, k = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn((m, k), dtype, device, g, int(mis)), _randn((k, n), dtype, device, g, int(mis)))


SHAPES = {"bench": (8192, 8192, 8192), "check": [(16, 16, 16), (100, 72, 65), (128, 128, 128), (33, 47, 129, "misaligned")]}

def flops(inputs):
    a, b = inputs
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


def bytes(inputs):  # noqa: A001 - the task format names it so
    a, b = inputs
    return (a.numel() + b.numel() + a.shape[0] * b.shape[1]) * a.element_size()

TOLERANCE = 5e-3  # tl.dot on fp32 runs as tf32 (K up to 300 at the check shapes)
