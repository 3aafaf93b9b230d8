"""`launch` (internal, GPU): run the task's launch once on the bench shape
and synchronize. ncu runs this verb as its profiled child."""
from . import gpulock, protocol
from .common import bench_shape, parse_dtype, shape_label
from .gpu import require_cuda
from .protocol import TASK_ERROR, HarnessError, describe_exception
from .taskload import interpreter, load_task


def add_args(p):
    """Options of the launch verb."""
    p.add_argument("--task", required=True)
    p.add_argument("--shape")
    p.add_argument("--dtype")
    p.add_argument("--runs", type=int, default=1)


def run(args):
    """Run launch --runs times on the GPU and synchronize."""
    torch = require_cuda()
    with interpreter(False):
        task = load_task(args.task)
    shape = bench_shape(task, args.shape)
    try:
        # ncu profiles these launches: nothing else runs on the GPU meanwhile
        with gpulock.exclusive():
            inputs = task.inputs(shape, "cuda", 0, parse_dtype(args.dtype))
            for _ in range(max(1, args.runs)):
                task.launch(*inputs)
            torch.cuda.synchronize()
    except HarnessError:
        raise
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"launch raised {describe_exception(e)}") from None
    return protocol.result("launch", task=task.path, shape=shape_label(shape), runs=max(1, args.runs))
