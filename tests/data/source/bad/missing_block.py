@triton.jit
def k(x):
    if x:
    return 1
