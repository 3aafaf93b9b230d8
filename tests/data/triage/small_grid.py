"""Fixed-size reductions whose launch grids are known from the source: one
leaves most of the 132 SMs idle, the other fills them."""
import torch
import triton
import triton.language as tl

N_ROWS = 64
N_COLS = 4096
HIDDEN = 1 << 20


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)


def launch(x):
    out = torch.empty(N_ROWS, device=x.device, dtype=torch.float32)
    row_sum_kernel[(N_ROWS,)](x, out, N_COLS, BLOCK=1024)
    return out


def launch_relu(x):
    y = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(HIDDEN, meta["BLOCK"]),)
    relu_kernel[grid](x, y, HIDDEN, BLOCK=2048, num_warps=8)
    return y


def launch_relu_small(x):
    y = torch.empty_like(x)
    relu_kernel[lambda meta: (triton.cdiv(HIDDEN, meta["BLOCK"]),)](x, y, HIDDEN, BLOCK=16384,
                                                                    num_warps=16)
    return y
