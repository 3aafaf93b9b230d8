def add_args(p):
    p.add_argument("--task")


def run(args):
    raise NotImplementedError
