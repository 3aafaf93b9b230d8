"""Row scaling in fp32 with the row stride kept out of specialization: the
launch passes a multiple of 16, but the compiler never learns it, so the
row loads and stores are scalar. tt.divisibility on the stride gives v4."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["stride"])
def lostdiv_kernel(x_ptr, y_ptr, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs)
    tl.store(y_ptr + row * stride + offs, x * 2.0)


def launch(x):
    y = torch.empty_like(x)
    lostdiv_kernel[(x.shape[0],)](x, y, x.stride(0), BLOCK=x.shape[1])
    return y


def reference(x):
    return x * 2.0


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (64, 1024), "check": [(4, 256)]}
