"""tile32.py with its row count a constexpr named R (as block-outputs names
it, _TDX_R) and BK 16: no name mentions M, R is the only constexpr of 32,
so the what-if compile raises R; with R=64 the dot is wgmma."""
import torch
import triton
import triton.language as tl


@triton.jit
def tile32_kernel(a_ptr, b_ptr, c_ptr, M, N, K, R: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * R + tl.arange(0, R)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((R, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    tile32_kernel[(M // 32, N // 64)](a, b, c, M, N, K, R=32, BN=64, BK=16, num_warps=4)
    return c


def reference(a, b):
    return a.double() @ b.double()


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    m, n, k = shape
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn((m, k), generator=g, dtype=torch.float32).to(dtype)
    b = torch.randn((k, n), generator=g, dtype=torch.float32).to(dtype)
    return a.to(device), b.to(device)


SHAPES = {"bench": (256, 256, 256), "check": [(128, 128, 64)]}
