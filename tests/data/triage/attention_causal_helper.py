"""Causal attention whose key/value sweep lives in a helper: the kernel calls
it once for the key blocks strictly below the diagonal and once for the
diagonal block (which needs the causal mask). The helper's loop covers
different key ranges in the two calls, so it is one pass over the keys."""
import torch
import triton
import triton.language as tl


@triton.jit
def _sweep_keys(out, run_sum, run_max, q, kt_blk, v_blk, qb, log2_scale, kv_lo, kv_hi,
                rq: tl.constexpr, rkv: tl.constexpr, BKV: tl.constexpr, ON_DIAGONAL: tl.constexpr):
    kt_blk = tl.advance(kt_blk, (0, kv_lo))
    v_blk = tl.advance(v_blk, (kv_lo, 0))
    for kv0 in range(kv_lo, kv_hi, BKV):
        kt = tl.load(kt_blk)
        s = tl.dot(q, kt) * log2_scale
        if ON_DIAGONAL:
            s = tl.where(rq[:, None] >= (kv0 + rkv)[None, :], s, -1.0e30)
        new_max = tl.maximum(run_max, tl.max(s, axis=1))
        p = tl.math.exp2(s - new_max[:, None])
        correction = tl.math.exp2(run_max - new_max)
        run_sum = run_sum * correction + tl.sum(p, axis=1)
        vb = tl.load(v_blk)
        out = tl.dot(p.to(tl.float16), vb, out * correction[:, None])
        run_max = new_max
        kt_blk = tl.advance(kt_blk, (0, BKV))
        v_blk = tl.advance(v_blk, (BKV, 0))
    return out, run_sum, run_max


@triton.jit
def causal_attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, scale, s_b, s_h, s_s, s_d, n_heads,
                            SEQ: tl.constexpr, D: tl.constexpr, BQ: tl.constexpr,
                            BKV: tl.constexpr):
    qb = tl.program_id(0)
    bh = tl.program_id(1)
    base = (bh // n_heads).to(tl.int64) * s_b + (bh % n_heads).to(tl.int64) * s_h
    q_blk = tl.make_block_ptr(base=q_ptr + base, shape=(SEQ, D), strides=(s_s, s_d),
                              offsets=(qb * BQ, 0), block_shape=(BQ, D), order=(1, 0))
    kt_blk = tl.make_block_ptr(base=k_ptr + base, shape=(D, SEQ), strides=(s_d, s_s),
                               offsets=(0, 0), block_shape=(D, BKV), order=(0, 1))
    v_blk = tl.make_block_ptr(base=v_ptr + base, shape=(SEQ, D), strides=(s_s, s_d),
                              offsets=(0, 0), block_shape=(BKV, D), order=(1, 0))
    o_blk = tl.make_block_ptr(base=o_ptr + base, shape=(SEQ, D), strides=(s_s, s_d),
                              offsets=(qb * BQ, 0), block_shape=(BQ, D), order=(1, 0))
    rq = qb * BQ + tl.arange(0, BQ)
    rkv = tl.arange(0, BKV)
    q = tl.load(q_blk)
    log2_scale = scale * 1.4426950408889634
    run_max = tl.full([BQ], -1.0e30, dtype=tl.float32)
    run_sum = tl.zeros([BQ], dtype=tl.float32)
    out = tl.zeros([BQ, D], dtype=tl.float32)
    out, run_sum, run_max = _sweep_keys(out, run_sum, run_max, q, kt_blk, v_blk, qb, log2_scale,
                                        0, qb * BQ, rq, rkv, BKV, False)
    out, run_sum, run_max = _sweep_keys(out, run_sum, run_max, q, kt_blk, v_blk, qb, log2_scale,
                                        qb * BQ, (qb + 1) * BQ, rq, rkv, BKV, True)
    tl.store(o_blk, (out / run_sum[:, None]).to(o_ptr.dtype.element_ty))


def launch(q, k, v, scale=0.125):
    batch, heads, seq, dim = q.shape
    o = torch.empty_like(q)
    grid = lambda meta: (triton.cdiv(seq, meta["BQ"]), batch * heads, 1)
    causal_attention_kernel[grid](q, k, v, o, scale, q.stride(0), q.stride(1), q.stride(2),
                                  q.stride(3), heads, SEQ=seq, D=dim, BQ=128, BKV=64,
                                  num_warps=8, num_stages=3)
    return o
