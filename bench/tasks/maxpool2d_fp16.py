"""2x2 max pooling, stride 2, of fp16 NCHW; initial kernel: flat over outputs, 256 per program, div/mod index math and four loads each."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def maxpool2d_kernel(x_ptr, y_ptr, H, W, OH, OW, n_out, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    ow = offs % OW
    oh = (offs // OW) % OH
    nc = offs // (OW * OH)
    base = x_ptr + nc * H * W + (2 * oh) * W + 2 * ow
    a = tl.load(base, mask=mask)
    b = tl.load(base + 1, mask=mask)
    c = tl.load(base + W, mask=mask)
    d = tl.load(base + W + 1, mask=mask)
    y = tl.maximum(tl.maximum(a, b), tl.maximum(c, d))
    tl.store(y_ptr + offs, y, mask=mask)


def launch(x):
    N, C, H, W = x.shape
    OH, OW = H // 2, W // 2
    y = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    n_out = y.numel()
    maxpool2d_kernel[(triton.cdiv(n_out, 256),)](x, y, H, W, OH, OW, n_out, BLOCK=256)
    return y


def reference(x):
    return torch.nn.functional.max_pool2d(x.double(), kernel_size=2, stride=2)


def torch_impl(x):
    return torch.nn.functional.max_pool2d(x, kernel_size=2, stride=2)


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


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    """shape is (N, C, H, W[, "misaligned"])."""
    dims, mis = _dims(shape)
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (_randn(dims, dtype, device, g, int(mis)),)


SHAPES = {"bench": (64, 64, 256, 256),
          "check": [(1, 1, 2, 2), (2, 3, 9, 11), (1, 4, 32, 32), (2, 3, 17, 13, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    (x,) = inputs
    n, c, h, w = x.shape
    return (x.numel() + n * c * (h // 2) * (w // 2)) * x.element_size()
