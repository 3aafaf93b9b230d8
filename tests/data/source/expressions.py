@triton.jit
def k(p, q, s: tl.constexpr):
    a = p[:, None] * q[None, :] + p[1:2:3] - q[..., ::2]
    b = -a ** 2 // 3 % 4 @ q << 1 >> 2 & 3 | 4 ^ ~5
    c = 0 < a <= b is not None and not a or b in q and a not in p
    d = a if c else (b, )
    e = 0x1F + 1_000 + 1e-5 + 3.0 + .5j + 0o17 + 0b101
    f = (p +
         q) + \
        s
    g = [i * 2 for i in range(4) if i], {1: 2, **q}, {1, 2}, ()
    h = tl.where(c, a, b)  # comment
    return a, b, c, d, e, f, g, h
