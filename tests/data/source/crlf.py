@triton.jit
def k(x, N: tl.constexpr):
    y = x + \
        1
    return (y,
            N)
