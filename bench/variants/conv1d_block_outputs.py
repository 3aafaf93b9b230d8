"""Direct conv1d (stride 1, no padding) on fp32 (N, C_in, L); initial kernel: one program per 128 outputs of one (n, c_out), scalar weight loads."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def conv1d_kernel(x_ptr, w_ptr, y_ptr, C_in, L, C_out, L_out, K, BLOCK: tl.constexpr, _tdx_np, _TDX_R: tl.constexpr):
    pid_l = tl.program_id(0)
    co = tl.program_id(1) * _TDX_R + tl.arange(0, _TDX_R)[:, None]
    _tdx_live = co < _tdx_np
    n = tl.program_id(2)
    offs = pid_l * BLOCK + tl.arange(0, BLOCK)
    mask = offs < L_out
    acc = tl.zeros((_TDX_R, BLOCK,), dtype=tl.float32)
    for ci in range(0, C_in):
        for kk in range(0, K):
            w = tl.load(w_ptr + co * C_in * K + ci * K + kk, mask=_tdx_live)
            x = tl.load(x_ptr + n * C_in * L + ci * L + offs + kk, mask=mask, other=0.0)
            acc += w * x
    tl.store(y_ptr + n * C_out * L_out + co * L_out + offs, acc, mask=(mask) & _tdx_live)


def launch(x, w):
    N, C_in, L = x.shape
    C_out, _, K = w.shape
    L_out = L - K + 1
    y = torch.empty((N, C_out, L_out), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(L_out, 128), triton.cdiv(C_out, 32), N)
    conv1d_kernel[grid](x, w, y, C_in, L, C_out, L_out, K, BLOCK=128, _tdx_np=C_out, _TDX_R=32, num_warps=1)
    return y


def reference(x, w):
    return torch.nn.functional.conv1d(x.double(), w.double())


# the kernel sums in full fp32: torch too (cuDNN would take tf32 by default)
TORCH_TF32 = False


def torch_impl(x, w):
    return torch.nn.functional.conv1d(x, w)


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
    """shape is (N, C_in, C_out, L, K[, "misaligned"])."""
    dims, mis = _dims(shape)
    n, c_in, c_out, length, k = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = _randn((n, c_in, length), dtype, device, g, int(mis))
    w = _randn((c_out, c_in, k), dtype, device, g, int(mis))
    return (x, w)


SHAPES = {"bench": (32, 64, 64, 65536, 3),
          "check": [(1, 1, 1, 5, 1), (2, 3, 4, 100, 3), (1, 4, 3, 200, 7), (2, 5, 3, 257, 5, "misaligned")]}


def flops(inputs):
    x, w = inputs
    n, l_out = x.shape[0], x.shape[2] - w.shape[2] + 1
    return 2 * n * w.shape[0] * l_out * w.shape[1] * w.shape[2]


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, w = inputs
    n, l_out = x.shape[0], x.shape[2] - w.shape[2] + 1
    return (x.numel() + w.numel() + n * w.shape[0] * l_out) * x.element_size()
