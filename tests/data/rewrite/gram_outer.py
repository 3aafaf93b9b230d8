"""fp32 U^T V over the rows of both: per row c, a row of V times a column of
U, written `acc = acc + row * col` (dot-accumulate)."""
import torch
import triton
import triton.language as tl


@triton.jit
def gram_kernel(u_ptr, v_ptr, out_ptr, C, M, N, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0) * BM + tl.arange(0, BM)[:, None]
    j = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for c in range(C):
        col = tl.load(u_ptr + c * M + i, i < M, 0.0)
        row = tl.load(v_ptr + c * N + j, j < N)
        acc = acc + row * col
    tl.store(out_ptr + i * N + j, acc, mask=(i < M) & (j < N))


def launch(u, v):
    C, M = u.shape
    N = v.shape[1]
    out = torch.empty((M, N), device=u.device, dtype=torch.float32)
    gram_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 128))](u, v, out, C, M, N, BM=16, BN=128)
    return out


def reference(u, v):
    return u.double().t() @ v.double()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    C, M, N = shape
    g = torch.Generator().manual_seed(seed)
    u = torch.randn((C, M), generator=g, dtype=torch.float32).to(dtype)
    v = torch.randn((C, N), generator=g, dtype=torch.float32).to(dtype)
    return (u.to(device), v.to(device))


SHAPES = {"bench": (4096, 2048, 2048), "check": [(5, 20, 30), (37, 17, 129), (16, 33, 8)]}
