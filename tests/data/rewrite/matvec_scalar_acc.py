"""y = A @ x in fp16, one program per row: each block's products summed to a
scalar in the loop (`acc = acc + tl.sum(a * x, axis=0)`)."""
import torch
import triton
import triton.language as tl


@triton.jit
def matvec_kernel(a_ptr, x_ptr, y_ptr, K, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, K, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < K
        a = tl.load(a_ptr + row * K + offs, mask=mask, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        acc = acc + tl.sum(a * x, axis=0)
    tl.store(y_ptr + row, acc.to(y_ptr.dtype.element_ty))


def launch(a, x):
    M, K = a.shape
    y = torch.empty(M, dtype=a.dtype, device=a.device)
    matvec_kernel[(M,)](a, x, y, K, BLOCK=128)
    return y


def reference(a, x):
    return a.double() @ x.double()


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    m, k = shape
    g = torch.Generator().manual_seed(seed)
    return (torch.randn((m, k), generator=g).to(dtype).to(device), torch.randn((k,), generator=g).to(dtype).to(device))


SHAPES = {"bench": (16384, 16384), "check": [(1, 1), (7, 300), (4, 513)]}
