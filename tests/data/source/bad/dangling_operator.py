@triton.jit
def k(x):
    return x +
