"""fp16 matrix multiplication with autotuned tiles (the configs come from a
module-level function), a 1-D grid walked in L2-friendly groups of rows, and
an optional ReLU-squared epilogue kept in a helper."""
import torch
import triton
import triton.language as tl


def tile_configs():
    return [
        triton.Config({"TM": 128, "TN": 256, "TK": 64, "GROUP": 8}, num_warps=8, num_stages=3),
        triton.Config({"TM": 128, "TN": 128, "TK": 64, "GROUP": 8}, num_warps=4, num_stages=4),
        triton.Config({"TM": 64, "TN": 128, "TK": 32, "GROUP": 4}, num_warps=4, num_stages=4),
    ]


@triton.jit
def _relu_squared(v):
    r = tl.maximum(v, 0.0)
    return r * r


@triton.autotune(configs=tile_configs(), key=["M", "N", "K"])
@triton.jit
def gemm_kernel(x_ptr, w_ptr, out_ptr, M, N, K,
                sxm, sxk, swk, swn, som, son,
                TM: tl.constexpr, TN: tl.constexpr, TK: tl.constexpr, GROUP: tl.constexpr,
                EPILOGUE: tl.constexpr):
    t = tl.program_id(0)
    tiles_m = tl.cdiv(M, TM)
    tiles_n = tl.cdiv(N, TN)
    per_group = GROUP * tiles_n
    g = t // per_group
    m0 = g * GROUP
    rows_in_group = min(tiles_m - m0, GROUP)
    tm = m0 + (t % per_group) % rows_in_group
    tn = (t % per_group) // rows_in_group
    rm = (tm * TM + tl.arange(0, TM)) % M
    rn = (tn * TN + tl.arange(0, TN)) % N
    rk = tl.arange(0, TK)
    xp = x_ptr + rm[:, None] * sxm + rk[None, :] * sxk
    wp = w_ptr + rk[:, None] * swk + rn[None, :] * swn
    acc = tl.zeros((TM, TN), dtype=tl.float32)
    for kb in range(0, tl.cdiv(K, TK)):
        left = K - kb * TK
        xa = tl.load(xp, mask=rk[None, :] < left, other=0.0)
        wb = tl.load(wp, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(xa, wb, acc)
        xp += TK * sxk
        wp += TK * swk
    if EPILOGUE == "relu2":
        acc = _relu_squared(acc)
    om = tm * TM + tl.arange(0, TM)
    on = tn * TN + tl.arange(0, TN)
    tl.store(out_ptr + om[:, None] * som + on[None, :] * son, acc.to(tl.float16),
             mask=(om[:, None] < M) & (on[None, :] < N))


def gemm(x, w, epilogue=""):
    M, K = x.shape
    K2, N = w.shape
    assert K == K2
    out = torch.empty((M, N), device=x.device, dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(M, meta["TM"]) * triton.cdiv(N, meta["TN"]),)
    gemm_kernel[grid](x, w, out, M, N, K, x.stride(0), x.stride(1), w.stride(0), w.stride(1),
                      out.stride(0), out.stride(1), EPILOGUE=epilogue)
    return out
