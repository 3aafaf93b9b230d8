"""Running sum of each row, one element per loop iteration: the sum is
carried from one iteration to the next, so the loop must not be
vectorized (vectorize-loop's negative control)."""
import torch
import triton
import triton.language as tl


@triton.jit
def row_cumsum_kernel(x_ptr, y_ptr, n_cols):
    row = tl.program_id(0)
    run = 0.0
    for j in range(n_cols):
        run += tl.load(x_ptr + row * n_cols + j)
        tl.store(y_ptr + row * n_cols + j, run)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    row_cumsum_kernel[(n_rows,)](x, y, n_cols)
    return y


def reference(x):
    return x.double().cumsum(dim=1)


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=dtype).to(device),)


SHAPES = {"bench": (4096, 4096), "check": [(3, 50)]}
