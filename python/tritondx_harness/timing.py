"""`time` (GPU): median and IQR of many runs of launch, with inputs rotated
among copies whose total is several times the L2, the baseline and a
candidate timed back to back in one process; achieved bytes/s and FLOP/s;
the torch baseline in eager mode and optionally under torch.compile.

The torch baseline is the task's `torch_impl` (what a PyTorch user would
write on the task's dtype) when it has one, else its `reference` (which may
compute in float64, so it is no fair comparison); the reply says which one.
`--torch-only` times the torch baseline alone: no kernel runs, so it also
works on the CPU (`--device cpu`, at the largest check shape by default).
`--beside-torch` times the torch baseline eager and under torch.compile
interleaved with the baseline and the candidate, run by run (variants
"torch_eager" and "torch_compile"): the comparison with torch made in the
same minute, on the same inputs, with the same clock state.

The module is named timing.py so it never shadows the standard `time`.
"""
import contextlib
import os
import time as _clock

from . import gpulock, precompile, protocol
from .common import (as_outputs, clone_values, bench_shape, parse_dtype, same_signature, shape_label, signature_text,
                     parse_shape, tensor_bytes)
from .gpu import device_info, estimate_ms, pin_timers, require_cuda, time_interleaved
from .isolate import confine_self, replaced, snapshot
from .protocol import INCORRECT, TASK_ERROR, TASK_INVALID, USAGE, HarnessError, describe_exception
from .stats import L2_BYTES_H200, batching, paired, rates, repetitions, rotation_count, summarize
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
    p.add_argument("--no-reference", action="store_true",
                   help="skip the torch baseline (torch_impl, else reference) in eager mode")
    p.add_argument("--torch-compile", action="store_true", help="also time torch.compile(torch baseline)")
    p.add_argument("--beside-torch", action="store_true",
                   help="time the torch baseline, eager and compiled, interleaved with launch")
    p.add_argument("--torch-only", action="store_true",
                   help="time only the torch baseline (eager, and compiled with --torch-compile), not launch")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="cpu only with --torch-only (pure torch; default shape: the largest check shape)")


def torch_baseline(task):
    """(callable, name) of what the torch columns time: torch_impl when the
    task has one, else reference; (None, None) when it has neither."""
    if callable(task.torch_impl):
        return task.torch_impl, "torch_impl"
    if callable(task.reference):
        return task.reference, "reference"
    return None, None


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


def run(args, warm=True):
    """Time baseline (and candidate) interleaved, plus the torch baseline;
    warm=False when the caller compiled ahead itself (trial)."""
    if args.torch_only:
        return run_torch_only(args)
    if args.device != "cuda":
        raise HarnessError(USAGE, "timing launch needs --device cuda (--device cpu only with --torch-only)")
    pre = None
    if warm and precompile.enabled():
        # the kernels' compiles, before CUDA starts and before the shared
        # hold (precompile.py); the task's and the candidate's
        files = [args.task] + ([args.candidate] if args.candidate else [])
        shapes = [parse_shape(args.shape)] if args.shape else None
        pre = precompile.warm(args.task, files, shapes, parse_dtype(args.dtype))
    require_cuda()
    # kernels run (and compile) under the shared GPU lock, the timed
    # repetitions under the exclusive one (gpu.py)
    with gpulock.shared():
        out = _run(args)
    if pre is not None:
        out["precompile"] = pre
    out["lock_wait_s"] = round(gpulock.waited_s(), 3)
    return out


def _run(args):
    torch = require_cuda()
    # before any task or candidate code runs: the timers used are these, and
    # a candidate that replaces them (or the harness's functions) is refused
    pin_timers()
    before = snapshot()
    if os.environ.get("TDX_SANDBOX") == "1":
        # CUDA cannot start inside the write confinement (error 304 on the
        # H200), so the context comes up first and the confinement follows,
        # before any task or candidate code is imported
        torch.zeros(1, device="cuda")
        confine_self()
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
    arg_sets, copies = rotated(torch, inputs, info, args.l2_factor)
    fns = {"baseline": task.launch}
    if cand is not None:
        fns["candidate"] = cand.launch
    beside = {}
    if args.beside_torch:
        beside = beside_fns(task, inputs)
        fns.update(beside.pop("fns"))
    try:
        # one exclusive hold for the estimate and the timed runs; torch
        # computes at the task's TORCH_TF32 while its baselines are among them
        waited, t0 = gpulock.waited_s(), _clock.monotonic()
        with gpulock.exclusive(), torch_precision(getattr(task.module, "TORCH_TF32", None) if beside else None):
            est = max(estimate_ms(f, inputs) for f in fns.values())
            # --reps N: N single calls a variant, as asked
            batch, reps = (1, args.reps) if args.reps else batching(est, repetitions(est, args.budget_ms))
            times = time_interleaved(fns, reps, args.warmup, arg_sets, batch)
        timed_s = _clock.monotonic() - t0 - (gpulock.waited_s() - waited)  # the hold, not the wait for it
    except HarnessError:
        raise
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
    if cand is not None:
        pair = paired(times["baseline"], times["candidate"])
        if pair:
            extra["paired"] = pair
    if beside:
        extra["beside_torch"] = beside
    if not args.no_reference or args.torch_compile:
        extra.update(time_torch(task, arg_sets, args, nbytes, flops, "cuda", eager=not args.no_reference))
    return protocol.result("time", task=task.path, candidate=cand.path if cand else None,
                           shape=shape_label(shape), device=info, bytes=nbytes, flops=flops,
                           out_bytes=tensor_bytes(outputs), dtype=compute_dtype(inputs),
                           bytes_basis=basis, copies=copies, rotated_bytes=copies * set_bytes_of(inputs),
                           reps=reps, batch=batch, variants=variants, timed_s=round(timed_s, 3), **extra)


def set_bytes_of(inputs):
    """Bytes of one set of inputs."""
    return tensor_bytes(inputs)


def rotated(torch, inputs, info, l2_factor):
    """(argument sets, copies): the inputs and clones of them whose total is
    l2_factor times the L2, within a quarter of free memory."""
    l2 = info.get("l2_bytes") or L2_BYTES_H200
    free, _ = torch.cuda.mem_get_info()
    copies = rotation_count(set_bytes_of(inputs), l2, l2_factor, budget_bytes=free // 4)
    return [inputs] + [clone_inputs(inputs) for _ in range(copies - 1)], copies


def cpu_shape(task):
    """The shape for the torch baseline on the CPU: the largest check shape
    (bench shapes move gigabytes), misaligned ones kept as they are."""
    shapes = task.shapes if isinstance(task.shapes, dict) else {}
    checks = list(shapes.get("check") or [])
    if not checks:
        raise HarnessError(TASK_INVALID, 'the task has no SHAPES["check"]; pass --shape')

    def size(s):
        n = 1
        for d in (s if isinstance(s, (list, tuple)) else ()):
            if isinstance(d, int):
                n *= d
        return n
    return max(checks, key=size)


def run_torch_only(args):
    """The torch baseline alone (eager, and compiled with --torch-compile) on
    the task's own inputs; launch never runs."""
    import torch
    if args.candidate:
        raise HarnessError(USAGE, "--torch-only times the task's torch baseline; it takes no --candidate")
    if args.device == "cuda":
        require_cuda()
        with gpulock.shared():
            return _run_torch_only(args)
    return _run_torch_only(args)


def _run_torch_only(args):
    import torch
    if args.device != "cuda":
        # one thread: on a shared machine a thread pool's wake-ups cost more
        # than small ops (12 ms against 10 µs for a relu of 64 Ki floats)
        torch.set_num_threads(1)
    with interpreter(False):
        task = load_task(args.task)
    if not callable(task.make_inputs):
        raise HarnessError(TASK_INVALID, "the task needs make_inputs")
    fn, which = torch_baseline(task)
    if fn is None:
        raise HarnessError(TASK_INVALID, "the task has neither torch_impl nor reference")
    if args.shape:
        shape = bench_shape(task, args.shape)
    else:
        shape = bench_shape(task) if args.device == "cuda" else cpu_shape(task)
    try:
        inputs = task.inputs(shape, args.device, 0, parse_dtype(args.dtype))
        with torch.no_grad(), torch_precision(getattr(task.module, "TORCH_TF32", None)):
            outputs = as_outputs(fn(*clone_inputs(inputs)))
        if args.device == "cuda":
            torch.cuda.synchronize()
        nbytes, flops, basis = count_bytes_flops(task, inputs, outputs)
    except HarnessError:
        raise
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"running the task's {which} raised {describe_exception(e)}") from None
    if args.device == "cuda":
        info = device_info()
        arg_sets, copies = rotated(torch, inputs, info, args.l2_factor)
    else:
        info = {"name": "cpu", "threads": torch.get_num_threads()}
        arg_sets, copies = [inputs], 1
    extra = time_torch(task, arg_sets, args, nbytes, flops, args.device, eager=True)
    extra["torch_dtype"] = [str(o.dtype).replace("torch.", "") for o in outputs if isinstance(o, torch.Tensor)]
    return protocol.result("time", task=task.path, candidate=None, shape=shape_label(shape), device=info,
                           bytes=nbytes, flops=flops, dtype=compute_dtype(inputs), bytes_basis=basis,
                           copies=copies, rotated_bytes=copies * set_bytes_of(inputs), variants={}, **extra)


def time_torch(task, arg_sets, args, nbytes, flops, device, eager=True):
    """The torch columns: {"torch_baseline": "torch_impl"|"reference",
    "torch_eager": stats, "torch_compile": stats + "compile_s"}; a column
    that fails holds {"error": ...} and never fails the timing."""
    import torch
    fn, which = torch_baseline(task)
    if fn is None:
        return {"torch_baseline": None}
    out = {"torch_baseline": which}
    tf32 = getattr(task.module, "TORCH_TF32", None)
    if tf32 is not None:
        out["torch_tf32"] = bool(tf32)
    with torch_precision(tf32):
        _time_torch(fn, out, arg_sets, args, nbytes, flops, device, eager)
    return out


def beside_fns(task, inputs):
    """The torch baseline as callables to time among launch's runs:
    {"fns": {"torch_eager": f, "torch_compile": g}, "torch_baseline": which,
    "compile_s": seconds of torch.compile's first call (kept out of the
    timed runs), "backend": ..., "error": why a column is missing}. A
    baseline that fails leaves its column out, never the timing; a task
    without torch_impl has none (its reference, often float64, is no
    comparison, and a slow one would stretch every timed run)."""
    fn, which = torch_baseline(task)
    out = {"fns": {}, "torch_baseline": which}
    if which != "torch_impl":
        out["error"] = "the task has no torch_impl to time beside it"
        return out
    errors = []
    with torch_precision(getattr(task.module, "TORCH_TF32", None)):
        try:
            _no_grad(fn)(*clone_inputs(inputs))
            out["fns"]["torch_eager"] = _no_grad(fn)
        except Exception as e:  # noqa: BLE001 - a column, not the timing
            errors.append(f"torch eager: {describe_exception(e)}")
        try:
            compiled, out["compile_s"], out["backend"] = _compile_first(
                fn, clone_inputs(inputs), any(getattr(x, "is_cuda", False) for x in inputs))
            out["fns"]["torch_compile"] = _no_grad(compiled)
        except Exception as e:  # noqa: BLE001
            errors.append(f"torch.compile: {describe_exception(e)}")
    if errors:
        out["error"] = "; ".join(errors)
    return out


@contextlib.contextmanager
def torch_precision(tf32):
    """A task's TORCH_TF32 (True/False) for matmuls and cuDNN convolutions
    while its torch baseline runs, so torch computes at launch's precision
    (tl.dot takes tf32 for fp32 inputs by default; torch's matmul does not,
    cuDNN's convolutions do); None leaves torch's defaults."""
    import torch
    if tf32 is None:
        yield
        return
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = bool(tf32)
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def _time_torch(fn, out, arg_sets, args, nbytes, flops, device, eager):
    """Fill out's torch_eager and torch_compile columns."""
    if eager:
        out["torch_eager"] = _time_one(fn, arg_sets, args, nbytes, flops, device)
    if args.torch_compile:
        try:
            compiled, compile_s, backend = _compile_first(fn, arg_sets[0], device == "cuda")
        except Exception as e:  # noqa: BLE001 - report, do not fail the timing
            out["torch_compile"] = {"error": describe_exception(e)}
        else:
            res = _time_one(compiled, arg_sets, args, nbytes, flops, device)
            res["compile_s"] = compile_s
            res["backend"] = backend
            out["torch_compile"] = res


def _no_grad(fn):
    """fn called under torch.no_grad()."""
    import torch

    def call(*a):
        with torch.no_grad():
            return fn(*a)
    return call


def _compile_first(fn, first_args, cuda):
    """(torch.compile(fn), seconds of its first call on first_args, backend):
    the first call on a shape compiles, so its wall time is the compile
    cost, kept out of the timed runs. TDX_TORCH_COMPILE_BACKEND is a test
    seam (e.g. "eager": Dynamo's tracing without Inductor's code
    generation, fast on a CPU); the backend is returned so that a stand-in
    is never read as Inductor. Raises what compiling raised."""
    import torch
    backend = os.environ.get("TDX_TORCH_COMPILE_BACKEND") or "inductor"
    compiled = torch.compile(fn, backend=backend)
    t0 = _clock.perf_counter()
    _no_grad(compiled)(*first_args)
    if cuda:
        torch.cuda.synchronize()
    return compiled, _clock.perf_counter() - t0, backend


def _time_one(fn, arg_sets, args, nbytes, flops, device="cuda"):
    """Median/IQR of one callable alone (torch eager, torch.compile), under no_grad."""
    call = _no_grad(fn)
    try:
        if device == "cuda":
            with gpulock.exclusive():
                est = estimate_ms(call, arg_sets[0])
                batch, reps = (1, args.reps) if args.reps else batching(est, repetitions(est, args.budget_ms))
                s = summarize(time_interleaved({"f": call}, reps, args.warmup, arg_sets, batch)["f"])
        else:
            s = summarize(_cpu_times(call, arg_sets, args))
    except Exception as e:  # noqa: BLE001
        return {"error": describe_exception(e)}
    s.update(rates(s["median_ms"], nbytes, flops))
    return s


def _cpu_times(fn, arg_sets, args):
    """Wall times (ms) of runs on the CPU: warm-up, then as many runs as fit
    the budget (at least 3)."""
    for _ in range(max(1, min(args.warmup, 2))):
        fn(*arg_sets[0])
    t0 = _clock.perf_counter()
    fn(*arg_sets[0])
    est = (_clock.perf_counter() - t0) * 1e3
    reps = args.reps or repetitions(est, args.budget_ms, lo=3, hi=200)
    times = []
    for i in range(reps):
        a = arg_sets[i % len(arg_sets)]
        t0 = _clock.perf_counter()
        fn(*a)
        times.append((_clock.perf_counter() - t0) * 1e3)
    return times
