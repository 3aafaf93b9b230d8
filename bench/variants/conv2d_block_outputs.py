"""Direct 3x3 conv2d (stride 1, padding 1) on fp32 NCHW; initial kernel: one program per 128 output pixels of one (n, c_out), scalar weight loads."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def conv2d_kernel(x_ptr, w_ptr, y_ptr, C_in, H, W, C_out, BLOCK: tl.constexpr, _tdx_np, _TDX_R: tl.constexpr):
    pid = tl.program_id(0)
    co = tl.program_id(1) * _TDX_R + tl.arange(0, _TDX_R)[:, None]
    _tdx_live = co < _tdx_np
    n = tl.program_id(2)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < H * W
    oh = offs // W
    ow = offs % W
    acc = tl.zeros((_TDX_R, BLOCK,), dtype=tl.float32)
    for ci in range(0, C_in):
        for kh in range(0, 3):
            for kw in range(0, 3):
                ih = oh + kh - 1
                iw = ow + kw - 1
                inside = mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                x = tl.load(x_ptr + ((n * C_in + ci) * H + ih) * W + iw, mask=inside, other=0.0)
                w = tl.load(w_ptr + ((co * C_in + ci) * 3 + kh) * 3 + kw, mask=_tdx_live)
                acc += x * w
    tl.store(y_ptr + (n * C_out + co) * H * W + offs, acc, mask=(mask) & _tdx_live)


def launch(x, w):
    N, C_in, H, W = x.shape
    C_out = w.shape[0]
    y = torch.empty((N, C_out, H, W), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(H * W, 128), triton.cdiv(C_out, 32), N)
    conv2d_kernel[grid](x, w, y, C_in, H, W, C_out, BLOCK=128, _tdx_np=C_out, _TDX_R=32, num_warps=1)
    return y


def reference(x, w):
    return torch.nn.functional.conv2d(x.double(), w.double(), padding=1)


# the kernel sums in full fp32: torch too (cuDNN would take tf32 by default)
TORCH_TF32 = False


def torch_impl(x, w):
    return torch.nn.functional.conv2d(x, w, padding=1)


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
    """shape is (N, C_in, C_out, H, W[, "misaligned"])."""
    dims, mis = _dims(shape)
    n, c_in, c_out, h, w = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = _randn((n, c_in, h, w), dtype, device, g, int(mis))
    wt = _randn((c_out, c_in, 3, 3), dtype, device, g, int(mis))
    return (x, wt)


SHAPES = {"bench": (16, 64, 64, 224, 224),
          "check": [(1, 1, 1, 3, 3), (1, 3, 2, 9, 11), (1, 2, 3, 12, 12), (1, 2, 2, 13, 7, "misaligned")]}


def flops(inputs):
    x, w = inputs
    n, _, h, wd = x.shape
    return 2 * n * w.shape[0] * h * wd * w.shape[1] * 9


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, w = inputs
    n, _, h, wd = x.shape
    return (x.numel() + w.numel() + n * w.shape[0] * h * wd) * x.element_size()
