"""Embedding lookup out[t] = weight[idx[t]] with a fp16 table; the initial kernel runs one program per token copying its whole row in one block."""
import math

import torch
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(idx_ptr, w_ptr, out_ptr, D, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    row = tl.load(idx_ptr + t)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    v = tl.load(w_ptr + row * D + offs, mask=mask)
    tl.store(out_ptr + t * D + offs, v, mask=mask)


def launch(weight, idx):
    D = weight.shape[1]
    T = idx.shape[0]
    out = torch.empty((T, D), dtype=weight.dtype, device=weight.device)
    embedding_kernel[(T,)](idx, weight, out, D, BLOCK=triton.next_power_of_2(D))
    return out


def reference(weight, idx):
    return torch.nn.functional.embedding(idx, weight.double())


def torch_impl(weight, idx):
    return torch.nn.functional.embedding(idx, weight)


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
    """shape is (tokens, vocab, dim[, "misaligned"])."""
    dims, mis = _dims(shape)
    t, v, d = dims
    g = torch.Generator(device="cpu").manual_seed(seed)
    weight = _randn((v, d), dtype, device, g, int(mis))
    if device == "meta":
        idx = torch.empty(t, dtype=torch.int64, device="meta")
    else:
        idx = torch.randint(0, v, (t,), generator=g).to(device)
    return (weight, idx)


SHAPES = {"bench": (262144, 32768, 1024),
          "check": [(1, 1, 1), (10, 50, 100), (64, 300, 128), (33, 77, 65, "misaligned")]}


def bytes(inputs):  # noqa: A001 - the task format names it so
    weight, idx = inputs
    t, d = idx.shape[0], weight.shape[1]
    return (weight.numel() + t * d) * weight.element_size() + t * 8
