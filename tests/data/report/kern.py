import triton
import triton.language as tl


@triton.jit
def row_sum(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for i in range(0, n, BLOCK):
        x = tl.load(x_ptr + row * n + i)
	acc = x  # a tab-indented line
    s = "é"; y = tl.load(x_ptr)
    tl.store(y_ptr + row, acc)
