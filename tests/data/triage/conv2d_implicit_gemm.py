"""2-D convolution (NHWC, stride 1) as an implicit GEMM: output pixels are the
M axis, output channels the N axis, and the loops over the filter window and
input-channel blocks form the K axis of tl.dot."""
import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_nhwc_kernel(x_ptr, w_ptr, y_ptr, N, H, W, C, K, P, Q,
                       R: tl.constexpr, S: tl.constexpr, PAD: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_c = tl.arange(0, BLOCK_C)
    n = offs_m // (P * Q)
    pq = offs_m % (P * Q)
    p = pq // Q
    q = pq % Q
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for r in range(R):
        for s in range(S):
            h = p + r - PAD
            w = q + s - PAD
            valid = (offs_m < N * P * Q) & (h >= 0) & (h < H) & (w >= 0) & (w < W)
            for c0 in range(0, C, BLOCK_C):
                cc = c0 + offs_c
                x = tl.load(x_ptr + ((n * H + h) * W + w)[:, None] * C + cc[None, :],
                            mask=valid[:, None] & (cc[None, :] < C), other=0.0)
                wt = tl.load(w_ptr + ((r * S + s) * C + cc)[:, None] * K + offs_k[None, :],
                             mask=(cc[:, None] < C) & (offs_k[None, :] < K), other=0.0)
                acc = tl.dot(x, wt, acc)
    y_ptrs = y_ptr + offs_m[:, None] * K + offs_k[None, :]
    tl.store(y_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < N * P * Q) & (offs_k[None, :] < K))


def launch(x, w):
    N, H, W, C = x.shape
    R, S, _, K = w.shape
    y = torch.empty((N, H, W, K), device=x.device, dtype=torch.float16)
    grid = (triton.cdiv(N * H * W, 128), triton.cdiv(K, 128))
    conv2d_nhwc_kernel[grid](x, w, y, N, H, W, C, K, H, W, R=R, S=S, PAD=R // 2,
                             BLOCK_M=128, BLOCK_N=128, BLOCK_C=64, num_warps=8)
    return y
