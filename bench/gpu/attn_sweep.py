"""Tile and loop-shape sweep of the two attention tasks on the GPU (one call, a short table).

For each task: the task's own launch, then its kernel at each (BLOCK_M, BLOCK_N, num_warps,
num_stages), then a variant whose key loop runs unmasked over the blocks that need no mask and
masked only over the rest (the diagonal blocks when causal, the tail block otherwise). Every variant
is compared with the task's own output before it is timed (triton.testing.do_bench, ms).
    python3 bench/gpu/attn_sweep.py [QUICK]
"""
import itertools
import math
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, "python")
from tritondx_harness.taskload import load_task  # noqa: E402


@triton.jit
def attn_split(q_ptr, k_ptr, v_ptr, o_ptr, S, qk_scale,
               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh * S * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_m[:, None] < S, other=0.0)
    m_i = tl.full((BLOCK_M,), -float("inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    if CAUSAL:
        full = pid_m * BLOCK_M
        hi = tl.minimum((pid_m + 1) * BLOCK_M, S)
    else:
        full = S - S % BLOCK_N
        hi = S
    for start_n in range(0, full, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    for start_n in range(full, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        k = tl.load(k_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
        v = tl.load(v_ptr + base + offs_n[:, None] * HEAD_DIM + offs_d[None, :], mask=offs_n[:, None] < S, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        keep = offs_n[None, :] < S
        if CAUSAL:
            keep = keep & (offs_m[:, None] >= offs_n[None, :])
        qk = tl.where(keep, qk, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(qk - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = (acc / l_i[:, None]).to(o_ptr.dtype.element_ty)
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out, mask=offs_m[:, None] < S)



def main():
    quick = len(sys.argv) > 1
    print("| task | variant | BM | BN | warps | stages | ms | vs task |")
    print("|---|---|---|---|---|---|---|---|")
    for name, causal in (("attention_causal_fp16", True), ("attention_fp16", False)):
        mod = load_task(f"bench/tasks/{name}.py").module
        q, k, v = mod.make_inputs(mod.SHAPES["bench"])
        B, H, S, D = q.shape
        want = mod.launch(q, k, v)
        base = triton.testing.do_bench(lambda: mod.launch(q, k, v))
        print(f"| {name} | task | | | | | {base:.4f} | 1.00 |", flush=True)
        bms, bns = ((64, 128), (32, 64, 128))
        ws, ss = ((4, 8), (3, 4)) if not quick else ((4, 8), (3,))
        for variant in ("tiles", "split"):
            for bm, bn, w, s in itertools.product(bms, bns, ws, ss):
                if variant == "split" and bm % bn:
                    continue
                o = torch.empty_like(q)
                grid = (triton.cdiv(S, bm), B * H)
                if variant == "tiles":
                    def fn():
                        mod.attention_kernel[grid](q, k, v, o, S, 1.0 / math.sqrt(D), HEAD_DIM=D,
                                                   BLOCK_M=bm, BLOCK_N=bn, num_warps=w, num_stages=s)
                else:
                    def fn():
                        attn_split[grid](q, k, v, o, S, 1.0 / math.sqrt(D) * 1.4426950408889634, HEAD_DIM=D,
                                         BLOCK_M=bm, BLOCK_N=bn, CAUSAL=causal, num_warps=w, num_stages=s)
                try:
                    fn()
                    torch.cuda.synchronize()
                    err = (o.float() - want.float()).abs().max().item()
                    if not err < 2e-2:
                        print(f"| {name} | {variant} | {bm} | {bn} | {w} | {s} | wrong ({err:.3g}) | |", flush=True)
                        continue
                    ms = triton.testing.do_bench(fn)
                except Exception as e:  # noqa: BLE001 - report and go on
                    print(f"| {name} | {variant} | {bm} | {bn} | {w} | {s} | {type(e).__name__} | |", flush=True)
                    continue
                print(f"| {name} | {variant} | {bm} | {bn} | {w} | {s} | {ms:.4f} | {base / ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
