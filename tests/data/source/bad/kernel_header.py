@triton.jit
def k(x y):
    pass
