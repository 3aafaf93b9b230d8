"""One program per (row, head) of 32 elements: 512 K programs at the bench
shape, each loading and storing one tiny tile."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_heads_kernel(x_ptr, w_ptr, y_ptr, H, D: tl.constexpr):
    pid = tl.program_id(0)
    h = pid % H
    offs = tl.arange(0, D)
    x = tl.load(x_ptr + pid * D + offs)
    w = tl.load(w_ptr + h * D + offs)
    tl.store(y_ptr + pid * D + offs, x * w)


def launch(x, w):
    R, H, D = x.shape
    y = torch.empty_like(x)
    scale_heads_kernel[(R * H,)](x, w, y, H, D=D)
    return y


def reference(x, w):
    return x * w[None, :, :]


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    r, h, d = shape
    return (torch.randn((r, h, d), generator=g).to(dtype).to(device),
            torch.randn((h, d), generator=g).to(dtype).to(device))


SHAPES = {"bench": (16384, 32, 32), "check": [(3, 2, 32), (5, 3, 32)]}
