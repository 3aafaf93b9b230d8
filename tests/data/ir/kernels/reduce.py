# Reductions: row-wise (softmax, layernorm, row sum), column-wise (along the
# non-contiguous axis), and a very large per-thread block.
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, stride, ncols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(y_ptr + row * stride + cols, num / den, mask=mask)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, stride, ncols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < ncols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / ncols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / ncols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    y = d * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def colsum_kernel(x_ptr, y_ptr, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Sum along axis 0 (rows), the non-contiguous one, then a 1-D store.
    pid = tl.program_id(0)
    rows = tl.arange(0, BLOCK_M)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :])
    s = tl.sum(x, axis=0)
    tl.store(y_ptr + cols, s)


@triton.jit
def rowsum_loop_kernel(x_ptr, y_ptr, stride, ncols, BLOCK: tl.constexpr):
    # A loop over column chunks with a plain (non-dot) load: not pipelined.
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, ncols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < ncols, other=0.0)
        acc += x
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def bigblock_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # A whole huge row held by one warp: far more live values than registers.
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    s = tl.sum(e, axis=0)
    t = tl.sum(e * x, axis=0)
    tl.store(y_ptr + offs, e / s + x * t, mask=offs < n)
