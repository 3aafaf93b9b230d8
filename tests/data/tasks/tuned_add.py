"""z = x + y with @triton.autotune over two configs and a @triton.heuristics
flag, and the output pointer kept out of alignment specialization."""
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=8, num_stages=2),
                          triton.Config({"BLOCK": 128}, num_warps=4, num_stages=3)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit(do_not_specialize_on_alignment=["z_ptr"])
def tuned_add(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(z_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    else:
        mask = offs < n
        tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def launch(x, y):
    z = torch.empty_like(x)
    n = x.numel()
    tuned_add[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, z, n)
    return z


def reference(x, y):
    return x.double() + y.double()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    y = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    return x.to(device), y.to(device)


SHAPES = {"bench": (4096,), "check": [(1000,), (4096,)]}
