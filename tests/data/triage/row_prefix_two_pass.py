# Two passes over a row: the first sums it, the second writes each element's
# running share of the sum. The second pass carries `run` from one block to
# the next, so walking it backwards would change what it writes: no TDX029.
import torch
import triton
import triton.language as tl


@triton.jit
def row_prefix_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        total += tl.sum(tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0), axis=0)
    run = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
        tl.store(y_ptr + row * n_cols + offs, (tl.cumsum(x, axis=0) + run) / total, mask=offs < n_cols)
        run += tl.sum(x, axis=0)


def launch(x):
    y = torch.empty_like(x)
    row_prefix_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
    return y


def reference(x):
    return x.double().cumsum(-1) / x.double().sum(-1, keepdim=True)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.rand(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (4096, 65536), "check": [(3, 5000)]}
