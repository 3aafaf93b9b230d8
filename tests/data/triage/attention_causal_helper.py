"""Causal flash attention with the inner loop in a helper, called once for the
blocks left of the diagonal and once for the diagonal block (the structure of
the Triton tutorial). The helper's loop runs over different key ranges, so it
is one pass, not two."""
import torch
import triton
import triton.language as tl


@triton.jit
def _attn_inner(acc, l_i, m_i, q, K_block, V_block, start_m, qk_scale,
                BLOCK_M: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
                STAGE: tl.constexpr, offs_m: tl.constexpr, offs_n: tl.constexpr, N_CTX: tl.constexpr):
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    else:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    K_block = tl.advance(K_block, (0, lo))
    V_block = tl.advance(V_block, (lo, 0))
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = tl.load(K_block)
        qk = tl.dot(q, k)
        if STAGE == 2:
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V_block)
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
        V_block = tl.advance(V_block, (BLOCK_N, 0))
        K_block = tl.advance(K_block, (0, BLOCK_N))
    return acc, l_i, m_i


@triton.jit
def _attn_fwd_causal(Q, K, V, sm_scale, Out, stride_qz, stride_qh, stride_qm, stride_qk,
                     stride_kz, stride_kh, stride_kn, stride_kk,
                     stride_vz, stride_vh, stride_vk, stride_vn,
                     stride_oz, stride_oh, stride_om, stride_on, Z, H, N_CTX: tl.constexpr,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    qvk_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    Q_block = tl.make_block_ptr(base=Q + qvk_offset, shape=(N_CTX, HEAD_DIM),
                                strides=(stride_qm, stride_qk), offsets=(start_m * BLOCK_M, 0),
                                block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    K_block = tl.make_block_ptr(base=K + qvk_offset, shape=(HEAD_DIM, N_CTX),
                                strides=(stride_kk, stride_kn), offsets=(0, 0),
                                block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
    V_block = tl.make_block_ptr(base=V + qvk_offset, shape=(N_CTX, HEAD_DIM),
                                strides=(stride_vk, stride_vn), offsets=(0, 0),
                                block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
    O_block = tl.make_block_ptr(base=Out + qvk_offset, shape=(N_CTX, HEAD_DIM),
                                strides=(stride_om, stride_on), offsets=(start_m * BLOCK_M, 0),
                                block_shape=(BLOCK_M, HEAD_DIM), order=(1, 0))
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = tl.load(Q_block)
    acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_block, V_block, start_m, qk_scale,
                                BLOCK_M, HEAD_DIM, BLOCK_N, 1, offs_m, offs_n, N_CTX)
    acc, l_i, m_i = _attn_inner(acc, l_i, m_i, q, K_block, V_block, start_m, qk_scale,
                                BLOCK_M, HEAD_DIM, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(O_block, acc.to(Out.type.element_ty))


def launch(q, k, v, sm_scale=0.125):
    Z, H, N_CTX, HEAD_DIM = q.shape
    o = torch.empty_like(q)
    grid = lambda args: (triton.cdiv(N_CTX, args["BLOCK_M"]), Z * H, 1)
    _attn_fwd_causal[grid](q, k, v, sm_scale, o,
                           q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                           k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                           v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                           o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                           Z, H, N_CTX=N_CTX, HEAD_DIM=HEAD_DIM, BLOCK_M=128, BLOCK_N=64,
                           num_warps=8, num_stages=3)
    return o
