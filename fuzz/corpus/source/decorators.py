@triton.autotune(configs=[triton.Config({'BLOCK': 128}, num_warps=4), triton.Config({'BLOCK': 256}, num_warps=8)], key=['n'])
@triton.heuristics({'EVEN': lambda args: args['n'] % args['BLOCK'] == 0})
@triton.jit(do_not_specialize=["stride"])
def k1(x, stride, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    pass


@jit
def k2(x):
    pass
