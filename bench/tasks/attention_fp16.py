"""Non-causal attention in fp16 (B, H, S, D); initial kernel: flash-style, 64 queries per program, 64-key blocks, online softmax with exp."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, S, sm_scale,
                     HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh * S * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    for start_n in range(0, S, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(offs_n[None, :] < S, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = (acc / l_i[:, None]).to(o_ptr.dtype.element_ty)
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out, mask=offs_m[:, None] < S)


def launch(q, k, v):
    B, H, S, D = q.shape
    o = torch.empty_like(q)
    grid = (triton.cdiv(S, 64), B * H)
    attention_kernel[grid](q, k, v, o, S, 1.0 / math.sqrt(D), HEAD_DIM=D, BLOCK_M=64, BLOCK_N=64)
    return o


def reference(q, k, v):
    q, k, v = q.double(), k.double(), v.double()
    s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
    return torch.softmax(s, dim=-1) @ v


def torch_impl(q, k, v):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def _dims(shape):
    """The integer sizes of `shape`, and whether it ends with the flag "misaligned"."""
    return tuple(int(d) for d in shape if d != "misaligned"), "misaligned" in shape


def _randn(dims, dtype, device, g, offset=0):
    """Normal values drawn on the CPU (the same on every device); with offset=1 a view one
    element into its buffer, so the data pointer is not 16-byte aligned."""
    if device == "meta":
        return torch.empty(dims, dtype=dtype, device="meta")
    buf = torch.randn(math.prod(dims) + offset, generator=g).to(dtype).to(device)
    return buf[offset:].view(dims)


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    """shape is (batch, heads, seq_len, head_dim[, "misaligned"]); head_dim a power of two."""
    dims, mis = _dims(shape)
    g = torch.Generator(device="cpu").manual_seed(seed)
    return tuple(_randn(dims, dtype, device, g, int(mis)) for _ in range(3))


SHAPES = {"bench": (4, 32, 4096, 64),
          "check": [(1, 1, 16, 16), (2, 3, 67, 32), (1, 2, 128, 64), (1, 2, 100, 64, "misaligned")]}


def flops(inputs):
    q = inputs[0]
    B, H, S, D = q.shape
    return 4 * B * H * S * S * D


def bytes(inputs):  # noqa: A001 - the task format names it so
    q = inputs[0]
    return 4 * q.numel() * q.element_size()
