"""Scale each row by a per-column weight, one element per loop iteration
(vectorize-loop)."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_cols_kernel(x_ptr, w_ptr, y_ptr, n_cols, bias):
    row = tl.program_id(0)
    base = row * n_cols
    for j in range(n_cols):
        w = tl.load(w_ptr + j)
        x = tl.load(x_ptr + base + j)
        tl.store(y_ptr + base + j, x * w + bias)


def launch(x, w):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    scale_cols_kernel[(n_rows,)](x, w, y, n_cols, 0.5)
    return y


def reference(x, w):
    return x.double() * w.double() + 0.5


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=dtype)
    w = torch.randn(shape[1], generator=g, dtype=dtype)
    return (x.to(device), w.to(device))


SHAPES = {"bench": (4096, 4096), "check": [(3, 100), (2, 1029)]}
