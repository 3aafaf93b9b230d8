"""Split-K matrix multiplication for a tall-K problem of known size: the K
axis is cut into SPLIT_K slices whose partial products meet in an atomic add."""
import torch
import triton
import triton.language as tl

M_SIZE, N_SIZE, K_SIZE = 512, 512, 16384


@triton.jit
def matmul_splitk_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                         stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                         SPLIT_K: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    grid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // grid_n
    pid_n = pid % grid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K * SPLIT_K)):
        k_remaining = K - k * (BLOCK_K * SPLIT_K)
        a = tl.load(a_ptrs, mask=rk[None, :] < k_remaining, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < k_remaining, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_K * SPLIT_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptrs, acc, mask=mask)


def launch(a, b):
    c = torch.zeros((M_SIZE, N_SIZE), device=a.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M_SIZE, META["BLOCK_M"]) * triton.cdiv(N_SIZE, META["BLOCK_N"]),
                         META["SPLIT_K"])
    matmul_splitk_kernel[grid](a, b, c, M_SIZE, N_SIZE, K_SIZE,
                               a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                               c.stride(0), c.stride(1),
                               BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, SPLIT_K=16, num_warps=8)
    return c
