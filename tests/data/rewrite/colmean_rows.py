"""Column means of a bf16 matrix: one program per 16 columns walks every row,
one row per iteration; the mean is stored cast back to bf16."""
import torch
import triton
import triton.language as tl


@triton.jit
def col_mean_kernel(x_ptr, y_ptr, n_rows, n_cols, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for r in range(0, n_rows):
        acc += tl.load(x_ptr + r * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + cols, (acc / n_rows).to(y_ptr.dtype.element_ty), mask=mask)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)
    col_mean_kernel[(triton.cdiv(n_cols, 16),)](x, y, n_rows, n_cols, BLOCK_N=16)
    return y


def reference(x):
    return x.double().mean(dim=0)


def make_inputs(shape, dtype=torch.bfloat16, device="cpu", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (4096, 4096), "check": [(1, 1), (37, 20), (9, 33)]}
