"""On the GPU machine: what loading a kept matmul's tiles through tensor
descriptors (TMA, host-built triton.tools.tensor_descriptor.TensorDescriptor)
is worth against the same kernel loading them through masked pointers
(cp.async). Each kept kernel given (TASK.opt.py from the suite: the 2-D
matmuls, the batched one, the bias+ReLU one) is timed as it is and as a
descriptor kernel with the same tiles, grid order and epilogue (its store stays
a masked pointer store), at the kept tiles and a few others, on the bench shape
with triton.testing.do_bench (median), beside torch's torch_impl. A variant must
match the kept kernel's output (max abs difference printed).

    python3 bench/gpu/tma_variants.py FILE.opt.py ...
"""
import os
import re
import sys

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import load, time_row, variant_files  # noqa: E402


@triton.jit
def mm_tma(a_desc, b_desc, bias_ptr, c_ptr, M, N, K, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
           GROUPED: tl.constexpr, B_KMAJOR: tl.constexpr, BIAS_RELU: tl.constexpr):
    if GROUPED:
        pid = tl.program_id(0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        group = pid // (8 * num_pid_n)
        first_m = group * 8
        group_m = min(num_pid_m - first_m, 8)
        pid_m = first_m + (pid % (8 * num_pid_n)) % group_m
        pid_n = (pid % (8 * num_pid_n)) // group_m
    else:
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([pid_m * BLOCK_M, k])
        if B_KMAJOR:
            b = b_desc.load([pid_n * BLOCK_N, k]).T
        else:
            b = b_desc.load([k, pid_n * BLOCK_N])
        acc += tl.dot(a, b)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if BIAS_RELU:
        bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc = tl.maximum(acc + bias[None, :], 0.0)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def bmm_tma(a_desc, b_desc, c_ptr, M, N, K, stride_cb, stride_cm, stride_cn,
            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([batch, pid_m * BLOCK_M, k]).reshape(BLOCK_M, BLOCK_K)
        b = b_desc.load([batch, k, pid_n * BLOCK_N]).reshape(BLOCK_K, BLOCK_N)
        acc += tl.dot(a, b)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + batch * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
             acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def kept_config(text):
    """(BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) of the kept launch."""
    def val(name):
        m = re.search(name + r"=(\d+)", text)
        return int(m.group(1)) if m else None
    return val("BLOCK_M"), val("BLOCK_N"), val("BLOCK_K"), val("num_warps") or 4, val("num_stages") or 3


def tma_launch(text, cfg):
    """A launch(*inputs) through descriptors with the tiles cfg, for the kept kernel's task."""
    bm, bn, bk, nw, ns = cfg
    grouped = "_group_m" in text
    bias_relu = "bias_ptr" in text
    bmm = "stride_ab" in text

    if bmm:
        def run(a, b):
            B, M, K = a.shape
            N = b.shape[2]
            c = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
            ad = TensorDescriptor.from_tensor(a, [1, bm, bk])
            bd = TensorDescriptor.from_tensor(b, [1, bk, bn])
            grid = (triton.cdiv(M, bm), triton.cdiv(N, bn), B)
            bmm_tma[grid](ad, bd, c, M, N, K, c.stride(0), c.stride(1), c.stride(2),
                          BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=nw, num_stages=ns)
            return c
        return run

    def run(a, b, bias=None):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        ad = TensorDescriptor.from_tensor(a, [bm, bk])
        if a.dtype == torch.float32:  # tf32 wants both operands K-major
            bt = b.t().contiguous()
            bd = TensorDescriptor.from_tensor(bt, [bn, bk])
            km = True
        else:
            bd = TensorDescriptor.from_tensor(b, [bk, bn])
            km = False
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),) if grouped else (triton.cdiv(M, bm), triton.cdiv(N, bn))
        mm_tma[grid](ad, bd, bias if bias is not None else c, c, M, N, K, c.stride(0), c.stride(1),
                     BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUPED=grouped, B_KMAJOR=km, BIAS_RELU=bias_relu,
                     num_warps=nw, num_stages=ns)
        return c
    return run


def main():
    for n, task, text in variant_files(sys.argv[1:]):
        mod = load(text, f"t{n}")
        tf32 = "float32" in text.split("def make_inputs")[1].split("\n")[0] or "fp32" in task
        torch.backends.cuda.matmul.allow_tf32 = tf32
        ins = mod.make_inputs(mod.SHAPES["bench"], device="cuda", seed=0)
        want = mod.launch(*ins)
        torch.cuda.synchronize()
        kept = triton.testing.do_bench(lambda: mod.launch(*ins), warmup=50, rep=300)
        tt = triton.testing.do_bench(lambda: mod.torch_impl(*ins), warmup=50, rep=300)
        print(f"| {task} | kept {kept_config(text)} | {kept:.4f} | 1.000 | {tt:.4f} | |")
        cfg = kept_config(text)
        bm, bn, bk, nw, ns = cfg
        tries = [cfg, (bm, bn, bk, nw, ns + 1), (128, 128, bk, 4, 4), (128, 128, bk, 8, 4),
                 (128, 256, bk, 8, 4), (64, 256, bk, 4, 4)]
        seen = set()
        for c in tries:
            if c in seen:
                continue
            seen.add(c)
            time_row(task, f"tma {c}", tma_launch(text, c), ins, want, kept, tt, warmup=50, rep=300)


if __name__ == "__main__":
    main()
