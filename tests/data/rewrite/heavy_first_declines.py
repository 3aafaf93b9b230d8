"""Kernels whose programs' order heavy-first must leave alone: a loop that
runs shorter the larger the program id (the work falls, not grows), a
program id read twice (both reads would have to turn around), a loop that
starts at the program id (a persistent walk), and a bound through a name
bound twice."""
import torch
import triton
import triton.language as tl


@triton.jit
def tail_sum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n - pid * BLOCK, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n - pid * BLOCK, other=0.0)
    tl.store(y_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def twice_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, (pid + 1) * BLOCK, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + tl.program_id(0), tl.sum(acc, axis=0))


@triton.jit
def walk_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for t in range(pid, tl.cdiv(n, BLOCK), tl.num_programs(0)):
        offs = t * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


@triton.jit
def rebound_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    end = (pid + 1) * BLOCK
    end = n - end
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, end, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + pid, tl.sum(acc, axis=0))


def launch(x):
    n = x.numel()
    y = torch.empty(triton.cdiv(n, 64), device=x.device, dtype=torch.float32)
    tail_sum_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    twice_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    z = torch.empty_like(x)
    walk_kernel[(4,)](x, z, n, BLOCK=64)
    rebound_kernel[(triton.cdiv(n, 64),)](x, y, n, BLOCK=64)
    return y


def reference(x):
    n = x.numel()
    return torch.stack([x[:n - ((i + 1) * 64 if (i + 1) * 64 < n else n)].double().sum()
                        for i in range((n + 63) // 64)])


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (1 << 20,), "check": [(1000,)]}
