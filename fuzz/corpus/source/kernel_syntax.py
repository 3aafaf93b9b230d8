import triton

@triton.jit
def k(x):
    y = = x
