"""Layer normalisation over long rows in three sweeps: one for the mean, one
for the variance around it, one to normalise and apply the affine weights.
The row pointers are rebased once per program."""
import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_three_sweeps(X, Y, W, B, MEAN, RSTD, row_stride, n_cols, eps,
                           BLOCK: tl.constexpr):
    r = tl.program_id(0)
    X += r * row_stride
    Y += r * row_stride
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        total += tl.load(X + c, mask=c < n_cols, other=0.0).to(tl.float32)
    mu = tl.sum(total, axis=0) / n_cols
    sq = tl.zeros([BLOCK], dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        v = tl.load(X + c, mask=c < n_cols, other=0.0).to(tl.float32)
        d = tl.where(c < n_cols, v - mu, 0.0)
        sq += d * d
    inv_std = 1.0 / tl.sqrt(tl.sum(sq, axis=0) / n_cols + eps)
    tl.store(MEAN + r, mu)
    tl.store(RSTD + r, inv_std)
    for c0 in range(0, n_cols, BLOCK):
        c = c0 + tl.arange(0, BLOCK)
        m = c < n_cols
        v = tl.load(X + c, mask=m, other=0.0).to(tl.float32)
        gamma = tl.load(W + c, mask=m)
        beta = tl.load(B + c, mask=m)
        tl.store(Y + c, (v - mu) * inv_std * gamma + beta, mask=m)


def launch(x, weight, bias, eps=1e-5):
    rows = x.reshape(-1, x.shape[-1])
    n_rows, n_cols = rows.shape
    y = torch.empty_like(rows)
    mean = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    block = min(triton.next_power_of_2(n_cols), 8192 // x.element_size())
    warps = max(1, min(8, block // 256))
    layernorm_three_sweeps[(n_rows,)](rows, y, weight, bias, mean, rstd, rows.stride(0),
                                      n_cols, eps, BLOCK=block, num_warps=warps)
    return y.reshape(x.shape)


def reference(x, weight, bias, eps=1e-5):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), weight, bias, eps)
