"""`check`: is the task's launch (or a candidate's) correct against reference?

Every check shape, several seeds, outputs compared in float64 by the
relative error norm ||out - ref|| / ||ref|| against a dtype-aware tolerance.
Outputs are poisoned (NaN, or a sentinel for ints) as they are allocated
so elements the kernel never writes cannot pass. The reply lists every case
with its error and verdict, and one overall reason when it fails.

Also callable from Python: check_task(task_path, device="cpu", seeds=(0, 1, 2),
shapes=None, candidate=None) -> dict (the same dict the verb prints).
"""
import contextlib
import os
import re
import time

from . import protocol
from .common import as_outputs, clone_values, parse_dtype, parse_shape, same_signature, shape_label, signature_text
from .protocol import INCORRECT, NO_GPU, TASK_ERROR, TASK_INVALID, HarnessError, describe_exception, where
from .intercept import one_config
from .taskload import interpreter, load_task

# Relative-error-norm tolerances by how the output was computed.
TOLERANCES = {"float64": 1e-9, "float32": 1e-5, "tf32": 1e-3, "float16": 1e-2, "bfloat16": 1e-2,
              "float8": 1e-1, "int": 0.0}

# A finite value written into fresh outputs on the second run that tells
# unwritten elements from computed NaNs.
MARKER = 1234.5


def add_args(p):
    """Options of the check verb."""
    p.add_argument("--task", required=True)
    p.add_argument("--candidate")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--seeds", default="0,1,2", help="comma-separated seeds (at least one)")
    p.add_argument("--shape", action="append", help="check only this shape (repeatable)")
    p.add_argument("--dtype", help="pass this dtype to make_inputs")
    p.add_argument("--bench-shape", action="store_true",
                   help="also check SHAPES['bench'] once (first seed): a candidate that is only wrong "
                        "at the size it is timed at must not pass")


def run(args):
    """The check verb: check_task with the command line's options."""
    seeds = tuple(int(s) for s in args.seeds.split(",") if s.strip())
    shapes = [parse_shape(s) for s in args.shape] if args.shape else None
    return check_task(args.task, device=args.device, seeds=seeds, shapes=shapes,
                      candidate=args.candidate, dtype=args.dtype, bench_shape=args.bench_shape)


def dtype_class(dtype, uses_tf32=False):
    """The tolerance class of an output dtype ("float32", "tf32", "int", ...)."""
    name = str(dtype).replace("torch.", "")
    if name.startswith("float8"):
        return "float8"
    if name in ("float32", "complex64"):
        return "tf32" if uses_tf32 else "float32"
    if name in ("float64", "complex128"):
        return "float64"
    if name in ("float16", "bfloat16"):
        return name
    return "int"


def tolerance_for(dtype, uses_tf32=False, override=None):
    """(tolerance, basis) for an output dtype. A task's TOLERANCE (a number,
    or a dict keyed by dtype name or class) overrides the default."""
    cls = dtype_class(dtype, uses_tf32)
    if override is not None:
        if isinstance(override, dict):
            name = str(dtype).replace("torch.", "")
            for key in (name, cls):
                if key in override:
                    return float(override[key]), "task"
        else:
            return float(override), "task"
    return TOLERANCES[cls], cls


_DOT_CALL = re.compile(r"\bdot\s*\(")


def uses_tf32(source):
    """Whether some tl.dot in the source runs fp32 inputs as tf32: Triton's
    default input_precision for fp32 dots is "tf32" (TRITON_F32_DEFAULT can
    change it) unless the call says ieee or allow_tf32=False."""
    if os.environ.get("TRITON_F32_DEFAULT", "tf32") not in ("tf32", "tf32x3"):
        return False
    for m in _DOT_CALL.finditer(source):
        depth, i = 1, m.end()
        while i < len(source) and depth:
            depth += {"(": 1, ")": -1}.get(source[i], 0)
            i += 1
        call = source[m.end():i]
        if "ieee" not in call and "allow_tf32=False" not in call.replace(" ", ""):
            return True
    return False


# ---------------------------------------------------------------- poisoning

def _fill_value(dtype, mode):
    """What to fill a fresh tensor of `dtype` with, or None to leave it."""
    import torch
    if dtype == torch.bool:
        return None
    if dtype.is_floating_point or dtype.is_complex:
        return float("nan") if mode == "nan" else MARKER
    info = torch.iinfo(dtype)
    return info.min if info.min < 0 else info.max


@contextlib.contextmanager
def poisoned_allocations(mode="nan"):
    """Wrap torch.empty / empty_like / empty_strided / Tensor.new_empty so
    every tensor they return during the block is filled with poison."""
    import torch
    saved = {name: getattr(torch, name) for name in ("empty", "empty_like", "empty_strided")}
    saved_new_empty = torch.Tensor.new_empty

    def poison(t):
        """Fill a fresh tensor with the poison for its dtype."""
        if isinstance(t, torch.Tensor) and t.numel():
            v = _fill_value(t.dtype, mode)
            if v is not None:
                with torch.no_grad():
                    t.fill_(v)
        return t

    def wrap(orig):
        """An allocator that poisons what `orig` returns."""
        def wrapper(*a, **k):
            """The poisoning allocator."""
            return poison(orig(*a, **k))
        wrapper.__wrapped__ = orig
        return wrapper

    for name, orig in saved.items():
        setattr(torch, name, wrap(orig))
    torch.Tensor.new_empty = wrap(saved_new_empty)
    try:
        yield
    finally:
        for name, orig in saved.items():
            setattr(torch, name, orig)
        torch.Tensor.new_empty = saved_new_empty


# ---------------------------------------------------------------- comparing

def compare(out, ref, tol, want_dtype=None, marker_out=None):
    """Verdict for one output against its reference.

    Returns {"ok", "reason", "message", "rel_err", "max_abs_err", ...}; reason
    is one of type, shape, dtype, unwritten, nan, constant, tolerance.
    `marker_out` is the same output from a run with MARKER poison, used to
    tell unwritten elements from NaNs the kernel computed.
    """
    import torch
    res = {"ok": False, "reason": None, "message": None, "rel_err": None, "max_abs_err": None,
           "tolerance": tol}
    if not isinstance(out, torch.Tensor):
        res.update(reason="type", message=f"output is {type(out).__name__}, not a tensor")
        return res
    res["dtype"] = str(out.dtype).replace("torch.", "")
    res["shape"] = list(out.shape)
    ref = ref if isinstance(ref, torch.Tensor) else torch.as_tensor(ref)
    if tuple(out.shape) != tuple(ref.shape):
        res.update(reason="shape", message=f"output shape {list(out.shape)} differs from the "
                   f"reference's {list(ref.shape)}")
        return res
    if want_dtype is not None and out.dtype != want_dtype:
        res.update(reason="dtype", message=f"output dtype {res['dtype']} differs from the original "
                   f"kernel's {str(want_dtype).replace('torch.', '')}")
        return res
    o = out.detach().to("cpu", torch.float64)
    r = ref.detach().to("cpu", torch.float64)
    if out.dtype.is_complex:
        o, r = torch.view_as_real(out.detach().cpu()).double(), torch.view_as_real(ref.detach().cpu()).double()
    ref_fin = torch.isfinite(r)
    bad = ~torch.isfinite(o) & ref_fin
    nbad = int(bad.sum())
    if not out.dtype.is_floating_point and not out.dtype.is_complex and out.dtype != torch.bool:
        sentinel = _fill_value(out.dtype, "nan")
        unwritten = (out.detach().cpu() == sentinel) & (ref.detach().cpu() != sentinel)
        if int(unwritten.sum()):
            n = int(unwritten.sum())
            res.update(reason="unwritten", message=f"{n} of {out.numel()} elements were never "
                       "written (still hold the poison sentinel)", unwritten=n)
            return res
    if nbad:
        unwritten = 0
        if marker_out is not None and isinstance(marker_out, torch.Tensor) and \
                marker_out.shape == out.shape:
            mk = torch.tensor(MARKER, dtype=out.dtype).item()
            unwritten = int(((marker_out.detach().cpu() == mk) & bad).sum())
        if unwritten:
            idx = [int(i) for i in bad.nonzero()[0].tolist()] if bad.dim() else []
            res.update(reason="unwritten", message=f"{unwritten} of {out.numel()} elements were never "
                       f"written (first at index {idx})", unwritten=unwritten)
        else:
            res.update(reason="nan", message=f"{nbad} of {out.numel()} elements are NaN/Inf where "
                       "the reference is finite", nonfinite=nbad)
        return res
    # where the reference is not finite the output must match it exactly
    if not bool(ref_fin.all()):
        same = torch.isnan(o) & torch.isnan(r) | (o == r)
        if not bool(same[~ref_fin].all()):
            res.update(reason="nan", message="output differs where the reference is NaN/Inf")
            return res
    of, rf = o[ref_fin], r[ref_fin]
    diff = of - rf
    err_norm = float(torch.linalg.vector_norm(diff)) if diff.numel() else 0.0
    ref_norm = float(torch.linalg.vector_norm(rf)) if rf.numel() else 0.0
    rel = err_norm / ref_norm if ref_norm > 0 else err_norm
    res["rel_err"] = rel
    res["max_abs_err"] = float(diff.abs().max()) if diff.numel() else 0.0
    if of.numel() > 1 and bool((of == of.flatten()[0]).all()) and not bool((rf == rf.flatten()[0]).all()):
        v = float(of.flatten()[0])
        what = "all zero" if v == 0 else f"constant ({v:g})"
        res.update(reason="constant", message=f"output is {what} where the reference is not")
        return res
    if not (rel <= tol):
        res.update(reason="tolerance", message=f"relative error {rel:.3g} above tolerance {tol:g}")
        return res
    res["ok"] = True
    return res


# ---------------------------------------------------------------- the verb

def _clone(values):
    """Fresh copies of the tensor inputs, so launch and reference never share them."""
    return clone_values(values)


def _sync(device):
    """Wait for the GPU so errors and results belong to this run."""
    if device == "cuda":
        import torch
        torch.cuda.synchronize()


def _run_launch(launch, inputs, device, mode):
    """Run launch on copies of the inputs with poisoned allocations."""
    with poisoned_allocations(mode):
        out = launch(*_clone(inputs))
    _sync(device)
    return as_outputs(out)


def _source(path):
    """The text of a task file."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def check_task(task_path, device="cpu", seeds=(0, 1, 2), shapes=None, candidate=None, dtype=None,
               bench_shape=False):
    """Check a task's launch (or `candidate`'s launch) against the task's
    reference on every check shape and seed; returns the reply dict."""
    try:
        # The interpreter must stay selected while kernels run too: Triton
        # imports parts of itself lazily on the first interpreted launch.
        # With no GPU to benchmark on, @triton.autotune runs its first config.
        with interpreter(device == "cpu"), (one_config(0) if device == "cpu" else contextlib.nullcontext()):
            return _check(task_path, device, tuple(seeds), shapes, candidate, dtype, bench_shape)
    except HarnessError as e:
        return protocol.failure("check", e.kind, str(e), task=task_path, candidate=candidate,
                                device=device, cases=[], reason=e.extra.get("reason"),
                                **{k: v for k, v in e.extra.items() if k != "reason"})


def _check(task_path, device, seeds, shapes, candidate, dtype_name, bench_shape=False):
    """check_task's body; raises HarnessError for failures that are not verdicts."""
    if not seeds:
        raise HarnessError(protocol.USAGE, "at least one seed is needed")
    if device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise HarnessError(NO_GPU, "--device cuda asked for, but no CUDA device is visible")
    from .validate import task_problems
    dtype = parse_dtype(dtype_name)
    task = load_task(task_path, "task")
    cand = load_task(candidate, "candidate", reference_from=task) if candidate else None
    probs = task_problems(task)
    if probs:
        raise HarnessError(TASK_INVALID, probs[0]["message"], problems=probs)
    runner = task
    if cand is not None:
        if cand.launch is None or not callable(cand.launch):
            raise HarnessError(INCORRECT, "the candidate has no launch to run", reason="missing_launch")
        a, b = _signature_fns(task, cand)
        if not same_signature(a, b):
            raise HarnessError(INCORRECT, f"the candidate changes launch's signature: "
                               f"{signature_text(b)} instead of {signature_text(a)}", reason="signature")
        runner = cand
    tf32 = uses_tf32(_source(runner.path))
    shape_list = [(s, seeds) for s in (list(shapes) if shapes is not None else list(task.shapes["check"]))]
    if bench_shape:
        shape_list.append((task.shapes["bench"], seeds[:1]))
    cases = []
    first_fail = None
    for shape, shape_seeds in shape_list:
        want_dtypes = None
        for seed in shape_seeds:
            case = {"shape": shape_label(shape), "seed": seed, "ok": False, "reason": None, "message": None}
            t0 = time.monotonic()
            try:
                inputs = task.inputs(shape, device, seed, dtype)
            except Exception as e:  # noqa: BLE001
                raise HarnessError(TASK_ERROR, f"make_inputs({shape!r}, seed={seed}) raised "
                                   f"{describe_exception(e)}") from None
            try:
                refs = as_outputs(task.reference(*_clone(inputs)))
            except Exception as e:  # noqa: BLE001
                raise HarnessError(TASK_ERROR, f"reference raised {describe_exception(e)} "
                                   f"on shape {shape!r}") from None
            if cand is not None and want_dtypes is None:
                try:
                    want_dtypes = [getattr(o, "dtype", None) for o in _run_launch(task.launch, inputs, device,
                                                                                  "nan")]
                except Exception as e:  # noqa: BLE001
                    raise HarnessError(TASK_ERROR, f"the original launch raised {describe_exception(e)} "
                                       f"on shape {shape!r}") from None
            _fill_case(case, runner, inputs, refs, want_dtypes, device, tf32, task.tolerance)
            case["seconds"] = round(time.monotonic() - t0, 4)
            cases.append(case)
            if not case["ok"] and first_fail is None:
                first_fail = case
    common = {"task": os.path.abspath(task_path), "candidate": os.path.abspath(candidate) if candidate else None,
              "kind": task.kind, "device": device, "seeds": list(seeds), "cases": cases}
    if first_fail is not None:
        msg = f"shape {first_fail['shape']} seed {first_fail['seed']}: {first_fail['message']}"
        return protocol.failure("check", INCORRECT, msg, reason=first_fail["reason"], **common)
    return protocol.result("check", error=None, reason=None, **common)


def _signature_fns(task, cand):
    """The callables whose signatures must match: launch, or for KernelBench
    the forward of ModelNew (of Model when the original has no ModelNew)."""
    if task.kind == "kernelbench":
        orig_cls = getattr(task.module, "ModelNew", None) or getattr(task.module, "Model")
        new_cls = getattr(cand.module, "ModelNew", None)
        return orig_cls.forward, new_cls.forward if new_cls is not None else None
    return task.launch, cand.launch


def _fill_case(case, runner, inputs, refs, want_dtypes, device, tf32, task_tolerance):
    """Run launch once poisoned with NaN and compare every output. The
    tolerance override is the original task's; tf32 is judged from the
    kernels that run (a rewrite may enable tensor cores on purpose)."""
    try:
        outs = _run_launch(runner.launch, inputs, device, "nan")
    except Exception as e:  # noqa: BLE001
        case.update(reason="raised", message=f"launch raised {describe_exception(e)}{where(e)}")
        return
    if len(outs) != len(refs):
        case.update(reason="arity", message=f"launch returned {len(outs)} outputs, the reference {len(refs)}")
        return
    marker = None
    verdicts = []
    for i, (o, r) in enumerate(zip(outs, refs)):
        dt = getattr(o, "dtype", None)
        tol, basis = tolerance_for(dt, tf32, task_tolerance) if dt is not None else (0.0, "int")
        want = want_dtypes[i] if want_dtypes is not None and i < len(want_dtypes) else None
        v = compare(o, r, tol, want)
        if v["reason"] == "nan":
            if marker is None:
                try:
                    marker = _run_launch(runner.launch, inputs, device, "marker")
                except Exception:  # noqa: BLE001 - keep the NaN verdict
                    marker = []
            if i < len(marker):
                v = compare(o, r, tol, want, marker_out=marker[i])
        v["index"] = i
        v["tolerance_basis"] = basis
        verdicts.append(v)
    case["outputs"] = verdicts
    bad = next((v for v in verdicts if not v["ok"]), None)
    worst = max((v["rel_err"] for v in verdicts if v["rel_err"] is not None), default=None)
    case["rel_err"] = worst
    case["tolerance"] = verdicts[0]["tolerance"] if verdicts else None
    if bad is None:
        case["ok"] = True
    else:
        prefix = f"output {bad['index']}: " if len(verdicts) > 1 else ""
        case.update(reason=bad["reason"], message=prefix + bad["message"])

