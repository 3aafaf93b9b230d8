"""`time` (GPU): median and IQR of many runs of launch, with inputs rotated
among copies whose total is several times the L2, the baseline and a
candidate timed back to back in one process; achieved bytes/s and FLOP/s;
torch eager time of reference and optionally torch.compile's.

The module is named timing.py so it never shadows the standard `time`.
"""
from . import protocol
from .common import (as_outputs, clone_values, bench_shape, parse_dtype, same_signature, shape_label, signature_text,
                     tensor_bytes)
from .gpu import device_info, estimate_ms, pin_timers, require_cuda, time_interleaved
from .isolate import replaced, snapshot
from .protocol import INCORRECT, TASK_ERROR, HarnessError, describe_exception
from .stats import L2_BYTES_H200, rates, repetitions, rotation_count, summarize
from .taskload import interpreter, load_task


def add_args(p):
    """Options of the time verb."""
    p.add_argument("--task", required=True)
    p.add_argument("--candidate")
    p.add_argument("--shape", help="input shape (default: SHAPES['bench'])")
    p.add_argument("--dtype")
    p.add_argument("--budget-ms", type=float, default=300.0, help="timed time per variant (about)")
    p.add_argument("--reps", type=int, help="timed runs per variant (default: from --budget-ms)")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--l2-factor", type=float, default=4.0, help="rotated inputs total this many L2s")
    p.add_argument("--no-reference", action="store_true", help="skip timing torch eager reference")
    p.add_argument("--torch-compile", action="store_true", help="also time torch.compile(reference)")


def compute_dtype(inputs):
    """The dtype of the first floating-point tensor input ("float16", ...), or None:
    the C side picks the matmul ceiling for FLOPs by it."""
    import torch
    for x in inputs:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            return str(x.dtype).replace("torch.", "")
    return None


def clone_inputs(inputs):
    """A fresh copy of every tensor input (other values shared)."""
    return clone_values(inputs)


def count_bytes_flops(task, inputs, outputs):
    """(bytes, flops, basis): from the task's bytes()/flops() when present,
    else bytes = inputs read once + outputs written once, flops unknown."""
    basis = "task"
    if callable(task.bytes):
        nbytes = int(task.bytes(inputs))
    else:
        nbytes = tensor_bytes(inputs) + tensor_bytes(outputs)
        basis = "default"
    flops = int(task.flops(inputs)) if callable(task.flops) else None
    return nbytes, flops, basis


def run(args):
    """Time baseline (and candidate) interleaved, plus torch references."""
    torch = require_cuda()
    # before any task or candidate code runs: the timers used are these, and
    # a candidate that replaces them (or the harness's functions) is refused
    pin_timers()
    before = snapshot()
    with interpreter(False):
        task = load_task(args.task)
        cand = load_task(args.candidate, "candidate", reference_from=task) if args.candidate else None
    if cand is not None and not same_signature(task.launch, cand.launch):
        raise HarnessError(INCORRECT, f"the candidate changes launch's signature: {signature_text(cand.launch)}",
                           reason="signature")
    shape = bench_shape(task, args.shape)
    try:
        inputs = task.inputs(shape, "cuda", 0, parse_dtype(args.dtype))
        outputs = as_outputs(task.launch(*clone_inputs(inputs)))
        torch.cuda.synchronize()
        nbytes, flops, basis = count_bytes_flops(task, inputs, outputs)
    except HarnessError:
        raise
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"running the task raised {describe_exception(e)}") from None
    info = device_info()
    l2 = info.get("l2_bytes") or L2_BYTES_H200
    set_bytes = tensor_bytes(inputs)
    free, _ = torch.cuda.mem_get_info()
    copies = rotation_count(set_bytes, l2, args.l2_factor, budget_bytes=free // 4)
    arg_sets = [inputs] + [clone_inputs(inputs) for _ in range(copies - 1)]
    fns = {"baseline": task.launch}
    if cand is not None:
        fns["candidate"] = cand.launch
    try:
        est = max(estimate_ms(f, inputs) for f in fns.values())
        reps = args.reps or repetitions(est, args.budget_ms)
        times = time_interleaved(fns, reps, args.warmup, arg_sets)
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"timing launch raised {describe_exception(e)}") from None
    swapped = replaced(before)
    if swapped:
        raise HarnessError(INCORRECT, f"{'the candidate' if cand is not None else 'the task'} replaced "
                           f"{', '.join(swapped[:4])} while it was timed (timers and the harness are not "
                           "its to change)", reason="tampered")
    variants = {}
    for name, ts in times.items():
        s = summarize(ts)
        s.update(rates(s["median_ms"], nbytes, flops))
        variants[name] = s
    extra = {}
    if not args.no_reference and callable(task.reference):
        extra["reference_eager"] = _time_one(task.reference, arg_sets, args, nbytes, flops)
    if args.torch_compile and callable(task.reference):
        try:
            compiled = torch.compile(task.reference)
            extra["torch_compile"] = _time_one(compiled, arg_sets, args, nbytes, flops)
        except Exception as e:  # noqa: BLE001 - report, do not fail the timing
            extra["torch_compile"] = {"error": describe_exception(e)}
    return protocol.result("time", task=task.path, candidate=cand.path if cand else None,
                           shape=shape_label(shape), device=info, bytes=nbytes, flops=flops,
                           dtype=compute_dtype(inputs),
                           bytes_basis=basis, copies=copies, rotated_bytes=copies * set_bytes,
                           reps=reps, variants=variants, **extra)


def _time_one(fn, arg_sets, args, nbytes, flops):
    """Median/IQR of one callable alone (reference, torch.compile)."""
    try:
        est = estimate_ms(fn, arg_sets[0])
        reps = args.reps or repetitions(est, args.budget_ms)
        s = summarize(time_interleaved({"f": fn}, reps, args.warmup, arg_sets)["f"])
    except Exception as e:  # noqa: BLE001
        return {"error": describe_exception(e)}
    s.update(rates(s["median_ms"], nbytes, flops))
    return s
