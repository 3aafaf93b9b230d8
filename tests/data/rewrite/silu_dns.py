"""SiLU with do_not_specialize on the size and .contiguous() at launch
(alignment-hints, exp2, remove-launch-passes)."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["n"])
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = x / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offs, y, mask=mask)


def launch(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    silu_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
    return y


def reference(x):
    return torch.nn.functional.silu(x.double())


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(1000,), (4099,)]}
