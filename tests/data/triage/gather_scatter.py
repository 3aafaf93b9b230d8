"""Embedding lookup (a gather through loaded indices) and its scatter back."""
import torch
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(idx_ptr, weight_ptr, out_ptr, dim, stride_w, stride_out,
                     BLOCK_D: tl.constexpr):
    tok = tl.program_id(0)
    idx = tl.load(idx_ptr + tok)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < dim
    row = tl.load(weight_ptr + idx * stride_w + cols, mask=mask)
    tl.store(out_ptr + tok * stride_out + cols, row, mask=mask)


@triton.jit
def index_copy_kernel(src_ptr, index_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    dst_idx = tl.load(index_ptr + offs, mask=mask, other=0)
    vals = tl.load(src_ptr + offs, mask=mask)
    tl.store(dst_ptr + dst_idx, vals, mask=mask)


def launch(idx, weight):
    n_tok = idx.numel()
    dim = weight.shape[1]
    out = torch.empty((n_tok, dim), device=weight.device, dtype=weight.dtype)
    embedding_kernel[(n_tok,)](idx, weight, out, dim, weight.stride(0), out.stride(0),
                               BLOCK_D=triton.next_power_of_2(dim))
    return out


def launch_index_copy(src, index, dst):
    n = src.numel()
    index_copy_kernel[(triton.cdiv(n, 1024),)](src, index, dst, n, BLOCK=1024)
    return dst
