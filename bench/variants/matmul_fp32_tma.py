"""C = A @ B for square fp32 matrices; the initial kernel is a plain 32x32x32 tiled tl.dot loop (default tf32 precision) on a 2-D grid."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
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
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_kernel_tma(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, _tdx_desc0, _tdx_desc1, _TDX_T0: tl.constexpr, _TDX_T1: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = (_tdx_desc0.load([k, (pid_m * BLOCK_M)]).T if _TDX_T0 else _tdx_desc0.load([(pid_m * BLOCK_M), k]))
        b = (_tdx_desc1.load([(pid_n * BLOCK_N), k]).T if _TDX_T1 else _tdx_desc1.load([k, (pid_n * BLOCK_N)]))
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _tdx_descriptor(x, shape, strides, _tdx_lead=None, **block):
    """A TMA descriptor of x for the 2-D tiles a kernel reads (shape, strides and the block's
    sizes, named by the kernel's constexprs, in its row, column order), and whether it is of the
    transposed view (rows contiguous); None when the tensor memory accelerator cannot read x so
    (alignment, strides, tile bytes). With _tdx_lead, the stride the kernel moves the base by
    (a batch), a 3-D descriptor of boxes [1, rows, columns]: its first extent is how many such
    steps x holds."""
    from triton.tools.tensor_descriptor import TensorDescriptor
    shape, strides, block = [int(v) for v in shape], [int(v) for v in strides], [int(v) for v in block.values()]
    flip = strides[1] != 1 and strides[0] == 1
    if flip:
        shape, strides, block = shape[::-1], strides[::-1], block[::-1]
    size = x.element_size()
    if (strides[1] != 1 or x.data_ptr() % 16 or strides[0] * size % 16 or min(shape) < 1
            or block[1] * size < 16 or any(b < 1 or b > 256 or b & (b - 1) for b in block)):
        return None
    if _tdx_lead is None:
        return TensorDescriptor(x, shape, strides, block), flip
    lead = int(_tdx_lead)
    span = 1 + sum((d - 1) * s for d, s in zip(x.shape, x.stride()))
    last = (shape[0] - 1) * strides[0] + shape[1] - 1
    if lead < 1 or lead * size % 16 or x.numel() == 0 or span <= last:
        return None
    return TensorDescriptor(x, [(span - 1 - last) // lead + 1] + shape, [lead] + strides, [1] + block), flip


def launch(a, b):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    grid = (triton.cdiv(M, 128), triton.cdiv(N, 256))
    b = b.movedim(0, -1).contiguous().movedim(-1, 0)
    _tdx_d0 = _tdx_descriptor(a, (M, K), (a.stride(0), a.stride(1)), BLOCK_M=128, BLOCK_K=32)
    _tdx_d1 = _tdx_descriptor(b, (K, N), (b.stride(0), b.stride(1)), BLOCK_K=32, BLOCK_N=256)
    if _tdx_d0 and _tdx_d1:
        matmul_kernel_tma[(triton.cdiv(M, 128), triton.cdiv(N, 256))](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, num_warps=8, num_stages=3, _tdx_desc0=_tdx_d0[0], _TDX_T0=_tdx_d0[1], _tdx_desc1=_tdx_d1[0], _TDX_T1=_tdx_d1[1])
    else:
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=128, BLOCK_N=256, BLOCK_K=32, num_warps=8, num_stages=3)
    return c


def reference(a, b):
    return a.double() @ b.double()


# tl.dot on fp32 inputs computes in tf32 (Triton's default): torch does too
TORCH_TF32 = True


def torch_impl(a, b):
    return a @ b


def _dims(shape):
    """The integer sizes of `shape`, and whether it ends with the flag "misaligned"."""
    return tuple(int(d) for d in shape if d != "misaligned"), "misaligned" in shape


def _randn(dims, dtype, device, g, offset=0):
    """Normal values drawn on the CPU (the same on every device); with offset=1 a view one
    element into its buffer, so the data pointer is not 16-byte aligned."""
    if device == "meta":
        return torch.empty(dims, dtype=dtype, device="meta")
    buf = torch.randn(math.prod(dims) + offset, generator=g).to(dtype).to(device)
    return buf[offset:].view(dims)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    """shape is (M, N, K[, "misaligned"])."""
    dims, mis = _dims(shape)
    m, n, k = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn((m, k), dtype, device, g, int(mis)), _randn((k, n), dtype, device, g, int(mis)))


SHAPES = {"bench": (8192, 8192, 8192), "check": [(16, 16, 16), (100, 72, 65), (128, 128, 128), (33, 47, 129, "misaligned")]}
TOLERANCE = 2e-3  # tl.dot on fp32 uses tf32 by default

def flops(inputs):
    a, b = inputs
    return 2 * a.shape[0] * a.shape[1] * b.shape[1]


def bytes(inputs):  # noqa: A001 - the task format names it so
    a, b = inputs
    return (a.numel() + b.numel() + a.shape[0] * b.shape[1]) * a.element_size()
