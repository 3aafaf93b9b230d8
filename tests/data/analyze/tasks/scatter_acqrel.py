"""Rows of src added into out at the rows idx names, with tl.atomic_add left
at its default acq_rel order: the PTX atomics in the loop are acq_rel (each
an ATOMG behind a MEMBAR in the SASS). The kernel only accumulates through
them, so sem="relaxed" makes them relaxed."""
import torch
import triton
import triton.language as tl


@triton.jit
def scatter_kernel(src_ptr, idx_ptr, out_ptr, D, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    dst = tl.load(idx_ptr + t)
    for start in range(0, D, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(src_ptr + t * D + offs, mask=offs < D)
        tl.atomic_add(out_ptr + dst * D + offs, v, mask=offs < D)


def launch(src, idx, num_rows):
    T, D = src.shape
    out = torch.zeros((num_rows, D), dtype=src.dtype, device=src.device)
    scatter_kernel[(T,)](src, idx, out, D, BLOCK=256)
    return out


def reference(src, idx, num_rows):
    out = torch.zeros((num_rows, src.shape[1]), dtype=torch.float64, device=src.device)
    return out.index_add_(0, idx, src.double())


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    t, d, v = shape
    g = torch.Generator(device="cpu").manual_seed(seed)
    src = torch.randn((t, d), generator=g, dtype=torch.float32).to(dtype)
    idx = torch.randint(0, v, (t,), generator=g)
    return src.to(device), idx.to(device), v


SHAPES = {"bench": (4096, 1024, 512), "check": [(64, 300, 16)]}
