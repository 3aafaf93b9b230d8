@triton.jit
def k(X, N, BLOCK_M: tl.constexpr, STAGES: tl.constexpr):
    if N > 0:
        pass
    elif N == 0:
        return
    else:
        assert N < 0, "negative"
    for i in range(0, N, BLOCK_M):
        if i > 4:
            break
        continue
    for j in tl.range(0, N, num_stages=STAGES):
        x = j
    for s in tl.static_range(4):
        x += s
    while x < N:
        x = x * 2
    return x
