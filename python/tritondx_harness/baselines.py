"""`baselines`: the torch baselines of several tasks in one interpreter --
what `time --torch-only` measures for one, without an interpreter start,
torch import and Dynamo/Inductor import per task (the bench's cache of
torch columns is filled with one call for a slice of the suite).

Only the tasks' own `torch_impl` (else `reference`) runs here, never a
candidate. The reply: {"tasks": [one `time --torch-only` reply per task, in
order]}; a task that fails has a failure reply of its own and the others go
on.
"""
import argparse

from . import protocol
from .protocol import HarnessError, describe_exception


def add_args(p):
    """Options of the baselines verb."""
    p.add_argument("--task", action="append", required=True, help="a task file (repeatable)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--torch-compile", action="store_true", help="also time torch.compile(torch baseline)")
    p.add_argument("--budget-ms", type=float, default=300.0)


def _one(task, args):
    """The `time --torch-only` reply for one task."""
    from . import timing
    p = argparse.ArgumentParser(add_help=False)
    timing.add_args(p)
    argv = ["--task", task, "--torch-only", "--device", args.device, "--budget-ms", str(args.budget_ms)]
    if args.torch_compile:
        argv.append("--torch-compile")
    try:
        return timing.run(p.parse_args(argv))
    except HarnessError as e:
        fields = {k: v for k, v in e.extra.items() if k not in ("ok", "verb", "protocol")}
        return protocol.failure("time", e.kind, str(e), task=task, **fields)
    except SystemExit as e:
        return protocol.failure("time", protocol.TASK_ERROR, f"the task called exit({e.code!r})", task=task)
    except Exception as e:  # noqa: BLE001 - one task's failure is its own
        return protocol.failure("time", protocol.TASK_ERROR, f"timing raised {describe_exception(e)}", task=task)


def run(args):
    """Time every task's torch baseline in turn."""
    return protocol.result("baselines", tasks=[_one(t, args) for t in args.task])
