"""A small fp32 matmul with an ieee dot on 32x32 tiles and 2 warps: Triton
cannot use wgmma (MMA v3) for it, and says so in a remark."""
import torch
import triton
import triton.language as tl


@triton.jit
def small_dot(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    small_dot[grid](a, b, c, M, N, K, BM=32, BN=32, BK=32, num_warps=2)
    return c


def reference(a, b):
    return a.double() @ b.double()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    m, n, k = shape
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn((m, k), generator=g, dtype=torch.float32).to(dtype)
    b = torch.randn((k, n), generator=g, dtype=torch.float32).to(dtype)
    return a.to(device), b.to(device)


SHAPES = {"bench": (256, 256, 256), "check": [(32, 32, 32), (40, 33, 70)]}
