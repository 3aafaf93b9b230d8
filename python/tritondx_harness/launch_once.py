"""`launch` (internal, GPU): run the task's launch once on the bench shape
and synchronize. ncu runs this verb as its profiled child."""
from . import protocol
from .common import parse_dtype, parse_shape, shape_label
from .gpu import require_cuda
from .protocol import TASK_ERROR, HarnessError, describe_exception
from .taskload import interpreter, load_task


def add_args(p):
    p.add_argument("--task", required=True)
    p.add_argument("--shape")
    p.add_argument("--dtype")
    p.add_argument("--runs", type=int, default=1)


def run(args):
    torch = require_cuda()
    with interpreter(False):
        task = load_task(args.task)
    shape = parse_shape(args.shape) if args.shape else task.shapes["bench"]
    try:
        inputs = task.inputs(shape, "cuda", 0, parse_dtype(args.dtype))
        for _ in range(max(1, args.runs)):
            task.launch(*inputs)
        torch.cuda.synchronize()
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"launch raised {describe_exception(e)}") from None
    return protocol.result("launch", task=task.path, shape=shape_label(shape), runs=max(1, args.runs))
