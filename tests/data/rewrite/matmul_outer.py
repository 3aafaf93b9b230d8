"""fp32 matmul written as one outer product per k: a column of A times a row
of B added into the tile (dot-accumulate)."""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_outer_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(a_ptr + rm[:, None] * sam + k * sak, mask=rm[:, None] < M)
        b = tl.load(b_ptr + k * sbk + rn * sbn, mask=rn < N, other=0.0)
        acc += a * b
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 64))
    matmul_outer_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                              BLOCK_M=32, BLOCK_N=64)
    return c


def reference(a, b):
    return a.double() @ b.double()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    M, N, K = shape
    g = torch.Generator().manual_seed(seed)
    a = torch.randn((M, K), generator=g, dtype=torch.float32).to(dtype)
    b = torch.randn((K, N), generator=g, dtype=torch.float32).to(dtype)
    return (a.to(device), b.to(device))


SHAPES = {"bench": (4096, 4096, 1024), "check": [(40, 24, 7), (17, 70, 33), (65, 130, 16)]}
