"""An fp32 matmul (tf32 on the tensor cores) reading B through the strides
of a row-major tensor: B is N-contiguous, the tf32 wgmma needs it K-major, so
each tile of B is transposed into shared memory one 4-byte cp.async at a time.
Passed K-major the copies are 16 bytes wide."""
import torch
import triton
import triton.language as tl


@triton.jit
def tf32_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_bk, stride_bn,
                BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=torch.float32, device=a.device)
    tf32_kernel[(M // 64, N // 64)](a, b, c, M, N, K, b.stride(0), b.stride(1), BM=64, BN=64, BK=32,
                                    num_warps=4)
    return c


def reference(a, b):
    return a.double() @ b.double()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    m, n, k = shape
    g = torch.Generator(device="cpu").manual_seed(seed)
    a = torch.randn((m, k), generator=g, dtype=torch.float32).to(dtype)
    b = torch.randn((k, n), generator=g, dtype=torch.float32).to(dtype)
    return a.to(device), b.to(device)


SHAPES = {"bench": (256, 256, 256), "check": [(128, 128, 64)]}
TOLERANCE = 5e-3  # tf32
