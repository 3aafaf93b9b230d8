"""Running row sums over column blocks: the scalar accumulator is read in the
loop (each block is scaled by the sum so far), so its per-block reduction
cannot move after the loop (defer-reduction leaves it alone)."""
import torch
import triton
import triton.language as tl


@triton.jit
def running_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0)
        acc += tl.sum(x, axis=0)
        tl.store(y_ptr + row * stride + offs, x * acc, mask=offs < n_cols)


def launch(x):
    y = torch.empty_like(x)
    running_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=64)
    return y


def reference(x):
    n = x.shape[1]
    blocks = torch.nn.functional.pad(x.double(), (0, -n % 64)).view(x.shape[0], -1, 64).sum(2).cumsum(1)
    return x.double() * blocks.repeat_interleave(64, dim=1)[:, :n]


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float32).to(dtype).to(device),)


SHAPES = {"bench": (8192, 8192), "check": [(1, 1), (5, 100), (3, 257)]}
