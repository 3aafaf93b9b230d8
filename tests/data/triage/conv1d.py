"""Depthwise 1-D convolution: each program owns a block of output positions of
one channel and accumulates the taps in a loop over the filter."""
import torch
import triton
import triton.language as tl


@triton.jit
def depthwise_conv1d_kernel(x_ptr, w_ptr, y_ptr, L, stride_xc, stride_yc,
                            KSIZE: tl.constexpr, PAD: tl.constexpr, BLOCK: tl.constexpr):
    ch = tl.program_id(0)
    pid = tl.program_id(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(KSIZE):
        pos = offs + k - PAD
        x = tl.load(x_ptr + ch * stride_xc + pos, mask=(pos >= 0) & (pos < L), other=0.0)
        w = tl.load(w_ptr + ch * KSIZE + k)
        acc += x.to(tl.float32) * w
    tl.store(y_ptr + ch * stride_yc + offs, acc, mask=offs < L)


def launch(x, w):
    C, L = x.shape
    y = torch.empty_like(x)
    grid = (C, triton.cdiv(L, 1024))
    depthwise_conv1d_kernel[grid](x, w, y, L, x.stride(0), y.stride(0),
                                  KSIZE=w.shape[1], PAD=w.shape[1] // 2, BLOCK=1024)
    return y


def reference(x, w):
    C = x.shape[0]
    return torch.nn.functional.conv1d(x[None], w[:, None, :], padding=w.shape[1] // 2,
                                      groups=C)[0]
