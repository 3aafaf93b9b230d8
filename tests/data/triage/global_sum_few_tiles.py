"""The same whole-tensor sum at a bench shape of 2^18 elements: 256
programs, fewer than 8 a SM, so one atomic a program costs little."""
import torch
import triton
import triton.language as tl


@triton.jit
def total_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0), sem="relaxed")


def launch(x):
    out = torch.zeros(1, dtype=torch.float32, device=x.device)
    n = x.numel()
    total_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


def reference(x):
    return x.double().sum().reshape(1)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (262144,), "check": [(1,), (1000,)]}
