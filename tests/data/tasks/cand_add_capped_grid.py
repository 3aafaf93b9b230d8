"""A candidate for add.py that is right at every check shape but launches at most
16 programs, so it leaves all but the first 2048 elements of the bench shape unwritten."""
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(z_ptr + offs, x + y, mask=mask)


def launch(x, y):
    z = torch.empty_like(x)
    n = x.numel()
    add_kernel[(min(triton.cdiv(n, 128), 16),)](x, y, z, n, BLOCK=128)
    return z


def reference(x, y):
    return x.double() + y.double()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    y = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    return x.to(device), y.to(device)


SHAPES = {"bench": (1 << 20,), "check": [(1000,), (256,), (1,)]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    x, y = inputs
    return 3 * x.numel() * x.element_size()
