import sys

match sys.argv:
    case [_, name]:
        print(name)
    case _:
        pass

type Alias = list[int]
x = 1
