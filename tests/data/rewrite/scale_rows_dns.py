"""Scale each row by a per-row factor; strides not specialized
(alignment-hints, remove-launch-passes, retune)."""
import torch
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["stride"])
def scale_rows_kernel(x_ptr, s_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    s = tl.load(s_ptr + row)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=m)
        tl.store(y_ptr + row * stride + offs, x * s, mask=m)


def launch(x, s):
    x = x.contiguous()
    s = s.contiguous()
    y = torch.empty_like(x)
    scale_rows_kernel[(x.shape[0],)](x, s, y, x.shape[1], x.stride(0), BLOCK=128)
    return y


def reference(x, s):
    return x.double() * s.double()[:, None]


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    s = torch.randn(shape[0], generator=g, dtype=torch.float32).to(dtype)
    return (x.to(device), s.to(device))


SHAPES = {"bench": (8192, 8192), "check": [(6, 300), (3, 129)]}
