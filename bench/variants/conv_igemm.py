"""conv1d and conv2d (the suite's tasks: stride 1; conv2d 3 x 3 with padding 1)
as implicit GEMMs: a program owns a tile of BCO output channels x BP output
positions and reduces over input channels in chunks of BCI and over the taps,
each step one tl.dot of a weight tile (BCO x BCI) by an input tile (BCI x BP).
input_precision="ieee" (PREC, the default) keeps the sums in fp32 (no tf32),
so tl.dot runs on the FMA units with both operands blocked in registers;
PREC="tf32x3" runs three tf32 products on the tensor cores, about fp32's
accuracy. The weights are
reordered once per call (taps first, then C_out x C_in) so a weight tile is
read along C_in. A hand-written variant for bench/gpu/conv_variants.py."""
import torch
import triton
import triton.language as tl


@triton.jit
def conv1d_igemm_kernel(x_ptr, w_ptr, y_ptr, C_in, L, C_out, L_out, K: tl.constexpr,
                        BCO: tl.constexpr, BP: tl.constexpr, BCI: tl.constexpr, PREC: tl.constexpr):
    pid_p = tl.program_id(0)
    co = tl.program_id(1) * BCO + tl.arange(0, BCO)
    n = tl.program_id(2)
    p = pid_p * BP + tl.arange(0, BP)
    acc = tl.zeros((BCO, BP), dtype=tl.float32)
    for c0 in range(0, C_in, BCI):
        ci = c0 + tl.arange(0, BCI)
        for k in tl.static_range(K):
            a = tl.load(w_ptr + (k * C_out + co[:, None]) * C_in + ci[None, :],
                        mask=(co[:, None] < C_out) & (ci[None, :] < C_in), other=0.0)
            b = tl.load(x_ptr + (n * C_in + ci[:, None]) * L + p[None, :] + k,
                        mask=(ci[:, None] < C_in) & (p[None, :] < L_out), other=0.0)
            acc += tl.dot(a, b, input_precision=PREC)
    tl.store(y_ptr + (n * C_out + co[:, None]) * L_out + p[None, :], acc,
             mask=(co[:, None] < C_out) & (p[None, :] < L_out))


@triton.jit
def conv2d_igemm_kernel(x_ptr, w_ptr, y_ptr, C_in, H, W, C_out,
                        BCO: tl.constexpr, BP: tl.constexpr, BCI: tl.constexpr, PREC: tl.constexpr):
    pid_p = tl.program_id(0)
    co = tl.program_id(1) * BCO + tl.arange(0, BCO)
    n = tl.program_id(2)
    p = pid_p * BP + tl.arange(0, BP)
    pm = p < H * W
    oh = p // W
    ow = p % W
    acc = tl.zeros((BCO, BP), dtype=tl.float32)
    for c0 in range(0, C_in, BCI):
        ci = c0 + tl.arange(0, BCI)
        for kh in tl.static_range(3):
            for kw in tl.static_range(3):
                ih = oh + kh - 1
                iw = ow + kw - 1
                inside = pm & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                a = tl.load(w_ptr + ((kh * 3 + kw) * C_out + co[:, None]) * C_in + ci[None, :],
                            mask=(co[:, None] < C_out) & (ci[None, :] < C_in), other=0.0)
                b = tl.load(x_ptr + ((n * C_in + ci[:, None]) * H + ih[None, :]) * W + iw[None, :],
                            mask=(ci[:, None] < C_in) & inside[None, :], other=0.0)
                acc += tl.dot(a, b, input_precision=PREC)
    tl.store(y_ptr + (n * C_out + co[:, None]) * (H * W) + p[None, :], acc,
             mask=(co[:, None] < C_out) & pm[None, :])


def conv1d(x, w, BCO=64, BP=128, BCI=16, num_warps=4, num_stages=2, PREC="ieee"):
    N, C_in, L = x.shape
    C_out, _, K = w.shape
    L_out = L - K + 1
    wt = w.permute(2, 0, 1).contiguous()  # (K, C_out, C_in)
    y = torch.empty((N, C_out, L_out), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(L_out, BP), triton.cdiv(C_out, BCO), N)
    conv1d_igemm_kernel[grid](x, wt, y, C_in, L, C_out, L_out, K, BCO=BCO, BP=BP, BCI=BCI, PREC=PREC,
                              num_warps=num_warps, num_stages=num_stages)
    return y


def conv2d(x, w, BCO=64, BP=128, BCI=16, num_warps=4, num_stages=2, PREC="ieee"):
    N, C_in, H, W = x.shape
    C_out = w.shape[0]
    wt = w.permute(2, 3, 0, 1).contiguous()  # (3, 3, C_out, C_in)
    y = torch.empty((N, C_out, H, W), dtype=x.dtype, device=x.device)
    grid = (triton.cdiv(H * W, BP), triton.cdiv(C_out, BCO), N)
    conv2d_igemm_kernel[grid](x, wt, y, C_in, H, W, C_out, BCO=BCO, BP=BP, BCI=BCI, PREC=PREC,
                              num_warps=num_warps, num_stages=num_stages)
    return y
