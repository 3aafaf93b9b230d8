"""An fp16 matmul on 128x256x128 tiles with num_stages=1: each stage of A and B
needs 96 KiB of shared memory, so three stages do not fit in the 227 KiB a CTA may use."""
import torch
import triton
import triton.language as tl


@triton.jit
def bigtile_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    bigtile_kernel[(M // 128, N // 256)](a, b, c, M, N, K, BM=128, BN=256, BK=128, num_warps=8, num_stages=1)
    return c


def reference(a, b):
    return a.double() @ b.double()


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    m, n, k = shape
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn((m, k), generator=g, dtype=torch.float32).to(dtype)
    b = torch.randn((k, n), generator=g, dtype=torch.float32).to(dtype)
    return a.to(device), b.to(device)


SHAPES = {"bench": (256, 512, 512), "check": [(128, 256, 128)]}
