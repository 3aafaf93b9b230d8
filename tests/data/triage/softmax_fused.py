"""Row softmax with the whole row in registers: a fixed number of programs
strides over the rows (tl.range with software pipelining of the row loads),
and each row is read once and written once."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                        BLOCK: tl.constexpr, STAGES: tl.constexpr):
    first = tl.program_id(0)
    step = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    for r in tl.range(first, n_rows, step, num_stages=STAGES):
        logits = tl.load(in_ptr + r * in_stride + cols, mask=valid, other=-float("inf"))
        shifted = logits - tl.max(logits, axis=0)
        e = tl.exp(shifted)
        probs = e / tl.sum(e, axis=0)
        tl.store(out_ptr + r * out_stride + cols, probs, mask=valid)


def launch(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    programs = min(4 * 132, n_rows)
    softmax_rows_kernel[(programs, 1, 1)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                          BLOCK=triton.next_power_of_2(n_cols), STAGES=2,
                                          num_warps=8)
    return y


def reference(x):
    return torch.softmax(x, dim=-1)
