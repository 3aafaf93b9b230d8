"""A small-matrix product written as broadcast-multiply-and-sum, and a
matrix-vector product (where the broadcast sum is the right tool)."""
import torch
import triton
import triton.language as tl


@triton.jit
def bmm_manual_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
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
        prod = a[:, :, None] * b[None, :, :]
        acc += tl.sum(prod, axis=1)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def gemv_kernel(w_ptr, x_ptr, y_ptr, M, K, stride_wm,
                BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        rk = k + tl.arange(0, BLOCK_K)
        w = tl.load(w_ptr + rm[:, None] * stride_wm + rk[None, :],
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        x = tl.load(x_ptr + rk, mask=rk < K, other=0.0)
        acc += tl.sum(w * x[None, :], axis=1)
    tl.store(y_ptr + rm, acc, mask=rm < M)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
    bmm_manual_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BLOCK_M=16, BLOCK_N=16, BLOCK_K=16)
    return c


def launch_gemv(w, x):
    M, K = w.shape
    y = torch.empty(M, device=w.device, dtype=torch.float32)
    gemv_kernel[(triton.cdiv(M, 64),)](w, x, y, M, K, w.stride(0), BLOCK_M=64, BLOCK_K=128,
                                     num_warps=4)
    return y
