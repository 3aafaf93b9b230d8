x = lambda a, *b, c=1, **d: (a if b else c) or not d
