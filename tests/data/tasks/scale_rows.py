"""Row scaling in fp16 with the row stride kept out of specialization:
y[r, c] = x[r, c] * w[c]. `stride_row` is in do_not_specialize, so the JIT
never learns it is a multiple of 16 and row starts are not known aligned;
`stride_col` is 1 at every launch and becomes a constant."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["stride_row"])
def scale_rows(x_ptr, w_ptr, y_ptr, n_cols, stride_row, stride_col, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride_row + offs * stride_col, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride_row + offs * stride_col, x * w, mask=mask)


def launch(x, w):
    y = torch.empty_like(x)
    n_rows, n_cols = x.shape
    scale_rows[(n_rows,)](x, w, y, n_cols, x.stride(0), x.stride(1), BLOCK=triton.next_power_of_2(n_cols))
    return y


def reference(x, w):
    return (x.double() * w.double()).to(x.dtype)


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    w = torch.randn(shape[-1], generator=g, dtype=torch.float32).to(dtype)
    return x.to(device), w.to(device)


SHAPES = {"bench": (64, 1024), "check": [(4, 128), (3, 100)]}
