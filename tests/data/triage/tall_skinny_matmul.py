# A tall-skinny matmul: at the bench shape its 64x64 tiles are 8192 x 1
# programs, one column: groups of 8 rows reach no more tiles a wave than
# grid order does (133 against 137), so no TDX028.
import torch
import triton
import triton.language as tl


@triton.jit
def tall_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ka = (k + rk)[None, :]
        a = tl.load(a_ptr + rm[:, None] * K + ka, mask=(rm[:, None] < M) & (ka < K), other=0.0)
        b = tl.load(b_ptr + ka.T * N + rn[None, :], mask=(ka.T < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
    tall_kernel[grid](a, b, c, M, N, K, BM=64, BN=64, BK=64)
    return c


def reference(a, b):
    return a.double() @ b.double()


def _make(dims, dtype, device):
    return torch.randn(math_prod(dims)).to(dtype).view(dims).to(device)


def math_prod(dims):
    p = 1
    for d in dims:
        p *= d
    return p


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    m, n, k = shape
    return (_make((m, k), dtype, device), torch.randn(k, n, dtype=dtype, device=device))


SHAPES = {"check": [(3, 40, 100)], "bench": (524288, 64, 256)}
