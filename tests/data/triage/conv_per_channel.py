"""One program per output channel: a direct conv1d whose input tile does not
depend on the channel (TDX020), and a depthwise conv1d whose input tile does
(each channel reads its own input: nothing shared)."""
import torch
import triton
import triton.language as tl


@triton.jit
def conv1d_kernel(x_ptr, w_ptr, y_ptr, C_in, L, C_out, L_out, K, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    co = tl.program_id(1)
    mask = offs < L_out
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for ci in range(0, C_in):
        for kk in range(0, K):
            w = tl.load(w_ptr + (co * C_in + ci) * K + kk)
            x = tl.load(x_ptr + ci * L + offs + kk, mask=mask, other=0.0)
            acc += w * x
    tl.store(y_ptr + co * L_out + offs, acc, mask=mask)


@triton.jit
def depthwise_kernel(x_ptr, w_ptr, y_ptr, L, L_out, K, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    c = tl.program_id(1)
    mask = offs < L_out
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kk in range(0, K):
        w = tl.load(w_ptr + c * K + kk)
        x = tl.load(x_ptr + c * L + offs + kk, mask=mask, other=0.0)
        acc += w * x
    tl.store(y_ptr + c * L_out + offs, acc, mask=mask)


def launch(x, w, wd):
    C_in, L = x.shape
    C_out, _, K = w.shape
    L_out = L - K + 1
    y = torch.empty((C_out, L_out), dtype=x.dtype, device=x.device)
    conv1d_kernel[(triton.cdiv(L_out, 256), C_out)](x, w, y, C_in, L, C_out, L_out, K, BLOCK=256)
    z = torch.empty((C_in, L_out), dtype=x.dtype, device=x.device)
    depthwise_kernel[(triton.cdiv(L_out, 256), C_in)](x, wd, z, L, L_out, K, BLOCK=256)
    return y, z


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    C_in, C_out, L, K = shape
    g = torch.Generator().manual_seed(seed)
    return (torch.randn((C_in, L), generator=g).to(dtype=dtype, device=device),
            torch.randn((C_out, C_in, K), generator=g).to(dtype=dtype, device=device),
            torch.randn((C_in, K), generator=g).to(dtype=dtype, device=device))


SHAPES = {"bench": (64, 128, 1 << 20, 5), "check": [(3, 5, 100, 3)]}
