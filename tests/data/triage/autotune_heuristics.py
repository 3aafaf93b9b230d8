"""Decorator stacks: autotune over configs that are all tiny, heuristics that
derive a constexpr, and autotune configs where a large block has no num_warps."""
import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 32}),
        triton.Config({"BLOCK": 64}),
    ],
    key=["n"],
)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_kernel(x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, x * alpha)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(y_ptr + offs, x * alpha, mask=offs < n)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 1024}, num_warps=4),
        triton.Config({"BLOCK": 4096}),
        triton.Config({"BLOCK": 8192}, num_warps=16, num_stages=2),
    ],
    key=["n"],
)
@triton.jit
def exp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.exp(x), mask=offs < n)


@triton.heuristics(values={"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})
@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


def launch(x, alpha):
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    scale_kernel[grid](x, y, alpha, n)
    exp_kernel[grid](y, y, n)
    return y
