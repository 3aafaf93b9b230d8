"""An empty Triton kernel, launched to measure launch overhead."""
import triton


@triton.jit
def _empty_kernel():
    pass


def launch_empty():
    _empty_kernel[(1,)]()
