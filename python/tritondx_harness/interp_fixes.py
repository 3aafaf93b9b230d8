"""Corrections to Triton 3.6's CPU interpreter, applied when the harness runs
kernels on the CPU, so that a correct kernel checks as correct there too."""


def bf16_dot_is_wrong():
    """Whether the interpreter computes a bf16 tl.dot on raw bits.

    Triton 3.6's interpreter keeps bf16 data as uint16 and its dot hands those
    integers to numpy's matmul as they are (runtime/interpreter.py create_dot),
    so a correct bf16 matmul kernel reads as wrong on the CPU."""
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp
    one = interp.TensorHandle(np.full((1, 1), 0x3F80, dtype=np.uint16), tl.bfloat16)  # 1.0
    acc = interp.TensorHandle(np.zeros((1, 1), dtype=np.float32), tl.float32)
    out = interp.InterpreterBuilder().create_dot(one, one, acc, None, None)
    return float(out.data[0, 0]) != 1.0


def fix_bf16_dot():
    """Make the interpreter's dot read bf16 operands as the numbers they hold
    (bf16 is the top half of a fp32), which is what the GPU's tensor cores do.
    Does nothing when the interpreter is already right (or already fixed)."""
    if not bf16_dot_is_wrong():
        return
    import numpy as np
    import triton.language as tl
    from triton.runtime import interpreter as interp
    plain_dot = interp.InterpreterBuilder.create_dot

    def widen(h):
        if h.dtype.scalar != tl.bfloat16:
            return h
        return interp.TensorHandle((h.data.astype(np.uint32) << 16).view(np.float32), tl.float32)

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        return plain_dot(self, widen(a), widen(b), d, input_precision, max_num_imprecise_acc)

    interp.InterpreterBuilder.create_dot = create_dot
