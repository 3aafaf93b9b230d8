"""`check`: is the task's launch (or a candidate's) correct against reference?

Every check shape, several seeds, outputs compared in float64 by the
relative error norm ||out - ref|| / ||ref|| against a dtype-aware tolerance.
Outputs are poisoned (NaN, or a sentinel for ints) as they are allocated
so elements the kernel never writes cannot pass. The reply lists every case
with its error and verdict, and one overall reason when it fails.

With --candidate the candidate's launch runs in a forked child and is judged
here, where no candidate code is ever imported (isolate.py, docs/faults.md).

Also callable from Python: check_task(task_path, device="cpu", seeds=(0, 1, 2),
shapes=None, candidate=None) -> dict (the same dict the verb prints).
"""
import contextlib
import os
import re
import time

from . import gpulock, precompile, protocol
from .common import as_outputs, clone_values, parse_dtype, parse_shape, shape_label
from .protocol import INCORRECT, NO_GPU, TASK_ERROR, TASK_INVALID, HarnessError, describe_exception, where
from .intercept import one_config
from .taskload import interpreter, load_task, read_source

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
    gpulock.yield_cpu()  # it never times: the cores go to the processes that do
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


# Elements of canary after every poisoned allocation: a store past the end
# of an output lands there, where it is seen, instead of in another
# allocation (GPU) or the heap (interpreter). There is no band before the
# start: a fresh tensor keeps storage offset 0, which code that calls
# as_strided on it relies on.
GUARD = 4096
CANARY_FLOAT = 31337.0
CANARY_INT = 90


def _canary(dtype):
    """The guard value for a dtype, or None when the dtype gets no guard."""
    import torch
    if dtype == torch.bool or str(dtype).startswith("torch.float8"):
        return None
    return CANARY_FLOAT if (dtype.is_floating_point or dtype.is_complex) else CANARY_INT


class Guards(list):
    """The guarded buffers of one poisoned block: (buffer, elements) pairs."""

    def damage(self):
        """How many guard elements were overwritten (0 when none)."""
        total = 0
        for flat, n in self:
            c = _canary(flat.dtype)
            total += int((flat[n:] != c).sum())
        return total


@contextlib.contextmanager
def poisoned_allocations(mode="nan"):
    """Wrap torch.empty / empty_like / empty_strided / Tensor.new_empty so
    every tensor they return during the block is filled with poison and
    followed by a guard band of canary values; yields a Guards list
    whose damage() counts the canaries a kernel overwrote."""
    import torch
    saved = {name: getattr(torch, name) for name in ("empty", "empty_like", "empty_strided")}
    saved_new_empty = torch.Tensor.new_empty
    guards = Guards()

    def poison(t):
        """Fill a fresh tensor with the poison for its dtype."""
        if isinstance(t, torch.Tensor) and t.numel():
            v = _fill_value(t.dtype, mode)
            if v is not None:
                with torch.no_grad():
                    t.fill_(v)
        return t

    def guarded(t):
        """The same tensor (shape, strides, dtype, device, storage offset)
        moved into a buffer followed by GUARD canary elements."""
        if not isinstance(t, torch.Tensor) or not t.numel() or _canary(t.dtype) is None:
            return t
        try:
            n = t.untyped_storage().nbytes() // t.element_size()
            flat = saved["empty"](n + GUARD, dtype=t.dtype, device=t.device)
            with torch.no_grad():
                flat[n:].fill_(_canary(t.dtype))
            view = flat.as_strided(t.size(), t.stride(), t.storage_offset())
        except Exception:  # noqa: BLE001 - an odd tensor stays unguarded
            return t
        guards.append((flat, n))
        return view

    def wrap(orig):
        """An allocator that guards and poisons what `orig` returns."""
        def wrapper(*a, **k):
            """The poisoning allocator."""
            return poison(guarded(orig(*a, **k)))
        wrapper.__wrapped__ = orig
        return wrapper

    for name, orig in saved.items():
        setattr(torch, name, wrap(orig))
    torch.Tensor.new_empty = wrap(saved_new_empty)
    try:
        yield guards
    finally:
        for name, orig in saved.items():
            setattr(torch, name, orig)
        torch.Tensor.new_empty = saved_new_empty


# ---------------------------------------------------------------- comparing

# Elements compared at a time: a bench-size output (up to 2^28 elements) is
# read in slices in float64 on the output's own device, never copied whole
# to the CPU or widened whole.
CHUNK = 1 << 24


class _Tally:
    """What one pass over an output and its reference finds (see compare)."""

    def __init__(self):
        self.n_fin = 0            # elements whose reference is finite
        self.nbad = 0             # ... where the output is not finite
        self.first_bad = None     # flat index of the first such element
        self.marker_hits = 0      # bad elements still holding MARKER in the marker run
        self.sentinel_hits = 0    # int outputs: elements still holding the poison
        self.nonfin_mismatch = False  # output differs where the reference is not finite
        self.err_norm = 0.0
        self.ref_norm = 0.0
        self.max_abs = 0.0
        self.first_o = None       # first output value where the reference is finite
        self.first_r = None
        self.o_const = True       # every such output value equals first_o
        self.r_const = True


def _tally(out, ref, marker_out=None):
    """One pass over flat views of out and ref (ref on out's device), in
    float64 slices of CHUNK elements."""
    import math
    import torch
    t = _Tally()
    o_all, r_all = out.reshape(-1), ref.reshape(-1)
    is_int = not out.dtype.is_floating_point and not out.dtype.is_complex and out.dtype != torch.bool
    sentinel = _fill_value(out.dtype, "nan") if is_int else None
    mk_all, mk = None, None
    if marker_out is not None and isinstance(marker_out, torch.Tensor) and marker_out.shape == out.shape:
        mk_all = marker_out.detach().to(out.device).reshape(-1)
        mk = torch.tensor(MARKER, dtype=marker_out.dtype).item()
    for s in range(0, o_all.numel(), CHUNK):
        oc_n, rc_n = o_all[s:s + CHUNK], r_all[s:s + CHUNK]
        if is_int:
            t.sentinel_hits += int(((oc_n == sentinel) & (rc_n != sentinel)).sum())
        oc, rc = oc_n.to(torch.float64), rc_n.to(torch.float64)
        fin = torch.isfinite(rc)
        bad = ~torch.isfinite(oc) & fin
        nb = int(bad.sum())
        if nb:
            if t.first_bad is None:
                t.first_bad = s + int(bad.nonzero()[0, 0])
            if mk_all is not None:
                t.marker_hits += int(((mk_all[s:s + CHUNK] == mk) & bad).sum())
        t.nbad += nb
        nf = int(fin.sum())
        if nf < fin.numel():
            same = torch.isnan(oc) & torch.isnan(rc) | (oc == rc)
            if not bool(same[~fin].all()):
                t.nonfin_mismatch = True
        if not nf:
            continue
        of, rf = (oc, rc) if nf == fin.numel() else (oc[fin], rc[fin])
        d = of - rf
        t.err_norm = math.hypot(t.err_norm, float(torch.linalg.vector_norm(d)))
        t.ref_norm = math.hypot(t.ref_norm, float(torch.linalg.vector_norm(rf)))
        t.max_abs = max(t.max_abs, float(d.abs().max()))
        if t.first_o is None:
            t.first_o, t.first_r = float(of[0]), float(rf[0])
        t.o_const = t.o_const and bool((of == t.first_o).all())
        t.r_const = t.r_const and bool((rf == t.first_r).all())
        t.n_fin += nf
    return t


def _unravel(flat, shape):
    """The index list of a flat position in a tensor of this shape."""
    idx = []
    for d in reversed(list(shape)):
        idx.append(flat % d)
        flat //= d
    return idx[::-1]


def compare(out, ref, tol, want_dtype=None, marker_out=None):
    """Verdict for one output against its reference.

    Returns {"ok", "reason", "message", "rel_err", "max_abs_err", ...}; reason
    is one of type, shape, dtype, unwritten, nan, constant, tolerance.
    `marker_out` is the same output from a run with MARKER poison, used to
    tell unwritten elements from NaNs the kernel computed. Compared in
    float64 on the output's device, a slice at a time (_tally).
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
    o, r = out.detach(), ref.detach().to(out.device)
    if out.dtype.is_complex:
        o, r, marker_out = torch.view_as_real(o), torch.view_as_real(r), None
    t = _tally(o, r, marker_out)
    if t.sentinel_hits:
        n = t.sentinel_hits
        res.update(reason="unwritten", message=f"{n} of {out.numel()} elements were never "
                   "written (still hold the poison sentinel)", unwritten=n)
        return res
    if t.nbad:
        if t.marker_hits:
            idx = _unravel(t.first_bad, o.shape)
            res.update(reason="unwritten", message=f"{t.marker_hits} of {out.numel()} elements were never "
                       f"written (first at index {idx})", unwritten=t.marker_hits)
        else:
            res.update(reason="nan", message=f"{t.nbad} of {out.numel()} elements are NaN/Inf where "
                       "the reference is finite", nonfinite=t.nbad)
        return res
    # where the reference is not finite the output must match it exactly
    if t.nonfin_mismatch:
        res.update(reason="nan", message="output differs where the reference is NaN/Inf")
        return res
    rel = t.err_norm / t.ref_norm if t.ref_norm > 0 else t.err_norm
    res["rel_err"] = rel
    res["max_abs_err"] = t.max_abs
    if t.n_fin > 1 and t.o_const and not t.r_const:
        v = t.first_o
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


def _run_launch(launch, inputs, device, mode, keep=None):
    """Run launch on copies of the inputs with poisoned, guarded allocations;
    returns (outputs, guard elements it overwrote). With a list as keep, the
    copies are appended to it, so that the caller holds them: a later case's
    copies then cannot reuse their storage, and a launch that memoizes on
    its inputs' addresses is caught by the reuse run with that reason rather
    than by whichever case happened to land on a freed address."""
    with poisoned_allocations(mode) as guards:
        copies = _clone(inputs)
        if keep is not None:
            keep.append(copies)
        out = launch(*copies)
    _sync(device)
    return as_outputs(out), guards.damage()


def _source(path):
    """The text of a task file."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def check_task(task_path, device="cpu", seeds=(0, 1, 2), shapes=None, candidate=None, dtype=None,
               bench_shape=False, timeout_s=None):
    """Check a task's launch (or `candidate`'s launch) against the task's
    reference on every check shape and seed; returns the reply dict. A
    candidate's child is killed after timeout_s seconds when given."""
    try:
        # The interpreter must stay selected while kernels run too: Triton
        # imports parts of itself lazily on the first interpreted launch.
        # With no GPU to benchmark on, @triton.autotune runs its first config.
        with interpreter(device == "cpu"), (one_config(0) if device == "cpu" else contextlib.nullcontext()):
            return _check(task_path, device, tuple(seeds), shapes, candidate, dtype, bench_shape, timeout_s)
    except HarnessError as e:
        return protocol.failure("check", e.kind, str(e), task=task_path, candidate=candidate,
                                device=device, cases=[], reason=e.extra.get("reason"),
                                **{k: v for k, v in e.extra.items() if k != "reason"})


def _check(task_path, device, seeds, shapes, candidate, dtype_name, bench_shape=False, timeout_s=None):
    """check_task's body; raises HarnessError for failures that are not verdicts."""
    if not seeds:
        raise HarnessError(protocol.USAGE, "at least one seed is needed")
    if device == "cuda":
        import torch
        if candidate:
            # the candidate runs in a forked child, and CUDA does not survive
            # a fork once the driver is initialised: ask NVML instead of the
            # CUDA runtime (which would initialise it) whether there is a GPU
            os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
        if not torch.cuda.is_available():
            raise HarnessError(NO_GPU, "--device cuda asked for, but no CUDA device is visible")
    from .validate import task_problems
    dtype = parse_dtype(dtype_name)
    task = load_task(task_path, "task")
    if candidate:
        read_source(candidate)  # a syntax error is reported before anything runs
    probs = task_problems(task)
    if probs:
        raise HarnessError(TASK_INVALID, probs[0]["message"], problems=probs)
    tf32 = uses_tf32(_source(candidate or task.path))
    shape_list = list(shapes) if shapes is not None else list(task.shapes["check"])
    plan = [(shape, seed) for shape in shape_list for seed in seeds]
    if bench_shape:
        plan.append((task.shapes["bench"], seeds[0]))
    pre = None
    phases = {}  # seconds of each part of the check
    if candidate and device == "cuda" and precompile.enabled():
        # the candidate's compiles, before the shared hold (precompile.py)
        t0 = time.monotonic()
        shapes_seen = {}
        for shape, _ in plan:
            shapes_seen.setdefault(repr(shape), shape)
        pre = precompile.warm(task.path, [candidate], list(shapes_seen.values()), dtype)
        phases["precompile"] = round(time.monotonic() - t0, 3)
    def run_cases():
        with gpulock.shared() if device == "cuda" else contextlib.nullcontext():
            if candidate:
                return _check_isolated(task, candidate, plan, seeds, device, dtype, tf32, timeout_s, phases)
            return _check_in_process(task, plan, device, dtype, tf32)
    cases = _alone_after_oom(run_cases, phases)
    first_fail = next((c for c in cases if not c["ok"]), None)
    common = {"task": os.path.abspath(task_path), "candidate": os.path.abspath(candidate) if candidate else None,
              "kind": task.kind, "device": device, "seeds": list(seeds), "cases": cases, "phases_s": phases,
              "tolerance": loosest_tolerance(cases)}
    if pre is not None:
        common["precompile"] = pre
    if first_fail is not None:
        where_ = "" if first_fail["shape"] is None else \
            f"shape {first_fail['shape']} seed {first_fail['seed']}: "
        return protocol.failure("check", first_fail.pop("error_kind", INCORRECT), where_ + first_fail["message"],
                                reason=first_fail["reason"], **common)
    return protocol.result("check", error=None, reason=None, **common)


def out_of_memory(text):
    """Whether an error's text tells of an allocator out of memory (torch's
    OutOfMemoryError, the CUDA runtime's or driver's), not of a kernel out
    of resources (registers, shared memory: those do not go away)."""
    text = str(text or "")
    return any(k in text for k in ("OutOfMemoryError", "CUDA out of memory", "CUDA_ERROR_OUT_OF_MEMORY",
                                   "cudaErrorMemoryAllocation"))


def _alone_after_oom(run, phases):
    """run()'s cases. While the GPU lock is on, other processes' checks and
    timings share the GPU; a run that ran out of memory (a case, or the
    task's own code raising) runs once more holding the lock exclusively:
    nothing else runs kernels then, and every other process has given its
    cached memory back on letting go of the lock (gpulock.release_memory).
    phases["alone"] gets that run's seconds; an out-of-memory error the
    second time says it came with the GPU to itself. With the lock off,
    nothing else shares the GPU and the first verdict stands."""
    try:
        cases = run()
        oom = any(not c["ok"] and out_of_memory(c.get("message")) for c in cases)
    except HarnessError as e:
        if not gpulock.enabled() or not out_of_memory(str(e)):
            raise
        oom = True
    if not oom or not gpulock.enabled():
        return cases
    gpulock.release_memory()
    alone = " (again with the GPU to itself)"
    t0 = time.monotonic()
    try:
        with gpulock.exclusive():
            cases = run()
    except HarnessError as e:
        if out_of_memory(str(e)):
            raise HarnessError(e.kind, str(e) + alone, **e.extra) from None
        raise
    finally:
        phases["alone"] = round(time.monotonic() - t0, 3)
    for c in cases:
        if not c["ok"] and out_of_memory(c.get("message")):
            c["message"] = str(c["message"]) + alone
    return cases


def loosest_tolerance(cases):
    """The largest relative-error tolerance any output of the cases was
    judged by (a tf32 dot loosens an fp32 output's), or None when none was
    judged."""
    tols = [v["tolerance"] for c in cases for v in c.get("outputs") or () if v.get("tolerance") is not None]
    return max(tols) if tols else None


def _inputs(task, shape, seed, device, dtype):
    """make_inputs for one case; HarnessError(task_error) when it raises."""
    try:
        return task.inputs(shape, device, seed, dtype)
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"make_inputs({shape!r}, seed={seed}) raised "
                           f"{describe_exception(e)}") from None


def _references(task, inputs, shape):
    """The reference outputs for one case; HarnessError(task_error) when it raises."""
    try:
        return as_outputs(task.reference(*_clone(inputs)))
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"reference raised {describe_exception(e)} "
                           f"on shape {shape!r}") from None


def _original_dtypes(task, inputs, device, shape):
    """Output dtypes of the task's own launch, which a candidate must keep."""
    try:
        outs, _ = _run_launch(task.launch, inputs, device, "nan")
    except Exception as e:  # noqa: BLE001
        raise HarnessError(TASK_ERROR, f"the original launch raised {describe_exception(e)} "
                           f"on shape {shape!r}") from None
    return [getattr(o, "dtype", None) for o in outs]


def _check_in_process(task, plan, device, dtype, tf32):
    """The task's own launch, checked in this process (it is the user's code)
    on every (shape, seed) of the plan."""
    cases = []
    for shape, seed in plan:
        case = {"shape": shape_label(shape), "seed": seed, "ok": False, "reason": None, "message": None}
        t0 = time.monotonic()
        inputs = _inputs(task, shape, seed, device, dtype)
        refs = _references(task, inputs, shape)
        _fill_case(case, task, inputs, refs, None, device, tf32, task.tolerance)
        case["seconds"] = round(time.monotonic() - t0, 4)
        cases.append(case)
    return cases


def _check_isolated(task, candidate, plan, seeds, device, dtype, tf32, timeout_s=None, phases=None):
    """A candidate's launch run in a forked child (isolate.py) on every
    (shape, seed) of the plan, judged here against references this process
    computes from the child's inputs. phases (a dict) gets the seconds of
    the child ("child": inputs, launches, transfers) and of the judging
    ("judge": references, the original's dtypes, comparisons)."""
    phases = {} if phases is None else phases
    import torch
    from .isolate import run_candidate
    # the same tensors run twice, new values written in between: the first
    # and second seed of the first shape
    reuse = (0, 1) if len(seeds) > 1 and plan else None
    t0 = time.monotonic()
    same = os.path.realpath(candidate) == os.path.realpath(task.path)
    got = run_candidate(task, candidate, plan, device, dtype, reuse,
                        role="the task" if same else "the candidate", timeout_s=timeout_s)
    if got["failure"] is not None:
        reason, message = got["failure"][0], got["failure"][1]
        kind = got["failure"][2] if len(got["failure"]) > 2 else INCORRECT
        return [{"shape": None, "seed": None, "ok": False, "reason": reason, "message": message,
                 "error_kind": kind}]
    phases["child"] = round(time.monotonic() - t0, 3)
    per_case = phases["child"] / max(1, len(plan))
    t0 = time.monotonic()
    if task.kind == "kernelbench":
        task.inputs(plan[0][0], device, plan[0][1], dtype)  # builds the reference model
    cases, want, refs_of = [], {}, []
    for i, ((shape, seed), ins, res) in enumerate(zip(plan, got["inputs"], got["cases"])):
        if i:
            gpulock.yield_turn()  # a waiting timing runs between two cases
        ins = tuple(v.to(device) if isinstance(v, torch.Tensor) else v for v in ins)
        case = {"shape": shape_label(shape), "seed": seed, "ok": False, "reason": None, "message": None}
        refs = _references(task, ins, shape)
        refs_of.append(refs)
        # the original's output dtypes, from its first case only: running it at
        # every shape compiled it once per specialization (seconds a trial on
        # the GPU), and no task's output dtype depends on the shape
        key = "dtypes"
        if key not in want:
            want[key] = _original_dtypes(task, ins, device, shape)
        if "error" in res:
            case.update(reason=res.get("reason") or "raised", message=str(res["error"]))
        else:
            outs = [o.to(device) if isinstance(o, torch.Tensor) else o for o in res.get("outputs") or []]
            marker = res.get("marker") or []
            _judge(case, outs, int(res.get("damage") or 0), refs, want[key], tf32, task.tolerance,
                   lambda m=marker: m)
        case["seconds"] = round(per_case, 4)
        cases.append(case)
    if reuse is not None and all(c["ok"] for c in cases):
        case = {"shape": shape_label(plan[reuse[1]][0]), "seed": plan[reuse[1]][1], "ok": False,
                "reason": None, "message": None, "reuse": True}
        outs = got["reuse"]
        if outs is None:
            case.update(reason="stale", message="launch failed when called again on the same tensors")
        else:
            outs = [o.to(device) if isinstance(o, torch.Tensor) else o for o in outs]
            _judge(case, outs, 0, refs_of[reuse[1]], want["dtypes"], tf32, task.tolerance,
                   lambda: [])
            if not case["ok"]:
                case.update(reason="stale", message="called again on the same tensors with new values "
                            "written into them, launch returned a wrong result (" + case["message"] +
                            "): it caches on its inputs' identity")
        cases.append(case)
    phases["judge"] = round(time.monotonic() - t0, 3)
    return cases


def _signature_fns(task, cand):
    """The callables whose signatures must match: launch, or for KernelBench
    the forward of ModelNew (of Model when the original has no ModelNew)."""
    if task.kind == "kernelbench":
        orig_cls = getattr(task.module, "ModelNew", None) or getattr(task.module, "Model")
        new_cls = getattr(cand.module, "ModelNew", None)
        return orig_cls.forward, new_cls.forward if new_cls is not None else None
    return task.launch, cand.launch


def _fill_case(case, runner, inputs, refs, want_dtypes, device, tf32, task_tolerance):
    """Run launch once poisoned with NaN and judge its outputs."""
    try:
        outs, damage = _run_launch(runner.launch, inputs, device, "nan")
    except Exception as e:  # noqa: BLE001
        case.update(reason="raised", message=f"launch raised {describe_exception(e)}{where(e)}")
        return

    def marker():
        """The outputs of a run with MARKER poison (to tell unwritten from NaN)."""
        try:
            return _run_launch(runner.launch, inputs, device, "marker")[0]
        except Exception:  # noqa: BLE001 - keep the NaN verdict
            return []
    _judge(case, outs, damage, refs, want_dtypes, tf32, task_tolerance, marker)


def _judge(case, outs, damage, refs, want_dtypes, tf32, task_tolerance, marker_fn):
    """Compare every output with its reference and fill the case. The
    tolerance override is the original task's; tf32 is judged from the
    kernels that run (a rewrite may enable tensor cores on purpose)."""
    if damage:
        case.update(reason="out_of_bounds", message=f"launch wrote past the ends of its outputs "
                    f"({damage} guard elements around them changed)")
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
                marker = marker_fn()
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
