def f():
    return g(1,
             2
