@triton.jit
def k(x):
    for i in range(4)
        pass
