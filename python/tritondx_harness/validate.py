"""`validate`: load the task and list exactly what is missing or wrong.

Reply: {"ok", "verb": "validate", "kind": "task"|"kernelbench", "kernels":
[{"name", "line"}], "problems": [{"code", "message", "line"?}]}. ok is true
only when there are no problems.
"""
import inspect

from . import protocol
from .protocol import TASK_INVALID, HarnessError
from .taskload import load_task


def add_args(p):
    """Options of the validate verb."""
    p.add_argument("--task", required=True)


def _problem(code, message, line=None):
    """One problem entry."""
    out = {"code": code, "message": message}
    if line is not None:
        out["line"] = line
    return out


def _accepts_keywords(fn, names):
    """Whether fn can be called with each of `names` as a keyword."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True  # a builtin or C callable: cannot tell, do not complain
    params = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return True
    ok = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return all(n in ok for n in names)


def task_problems(task):
    """Problems of a loaded task, as a list of dicts (empty when sound)."""
    probs = []
    if task.kind == "kernelbench":
        if task.reference is None:
            probs.append(_problem("missing_reference", "no `class Model` to use as the reference"))
        if task.launch is None:
            probs.append(_problem("missing_launch", "no `class ModelNew` (the Triton version) to run"))
    else:
        if task.reference is None:
            probs.append(_problem("missing_reference", "no `reference(*inputs)` function"))
        elif not callable(task.reference):
            probs.append(_problem("reference_not_callable", "`reference` is not callable"))
        if task.launch is None:
            probs.append(_problem("missing_launch", "no `launch(*inputs)` function"))
        elif not callable(task.launch):
            probs.append(_problem("launch_not_callable", "`launch` is not callable"))
        if task.make_inputs is None:
            probs.append(_problem("missing_make_inputs",
                                  "no `make_inputs(shape, dtype=..., device=..., seed=...)` function"))
        elif not callable(task.make_inputs):
            probs.append(_problem("make_inputs_not_callable", "`make_inputs` is not callable"))
        elif not _accepts_keywords(task.make_inputs, ("dtype", "device", "seed")):
            probs.append(_problem("make_inputs_keywords",
                                  "`make_inputs` must accept the keywords dtype, device and seed"))
        probs.extend(_shape_problems(task.shapes))
        tol = task.tolerance
        if tol is not None and not _is_tolerance(tol):
            probs.append(_problem("bad_tolerance", "`TOLERANCE` must be a positive number "
                                  "(or a dict of dtype name to positive number)"))
        for name in ("flops", "bytes"):
            fn = getattr(task, name)
            if fn is not None and not callable(fn):
                probs.append(_problem(f"{name}_not_callable", f"`{name}` must be a function of the inputs"))
    if not task.kernels:
        probs.append(_problem("no_kernels", "no @triton.jit kernel is defined in the file"))
    return probs


def _is_tolerance(tol):
    """Whether TOLERANCE is a positive number or a dict of them."""
    def pos(x):
        """A positive number, not a bool."""
        return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0
    if isinstance(tol, dict):
        return bool(tol) and all(pos(v) for v in tol.values())
    return pos(tol)


def _shape_problems(shapes):
    """Problems of SHAPES."""
    if shapes is None:
        return [_problem("missing_shapes", 'no `SHAPES = {"bench": shape, "check": [shape, ...]}`')]
    if not isinstance(shapes, dict):
        return [_problem("shapes_not_dict", "`SHAPES` must be a dict with keys \"bench\" and \"check\"")]
    probs = []
    if "check" not in shapes:
        probs.append(_problem("shapes_no_check", '`SHAPES` has no "check" list'))
    elif not isinstance(shapes["check"], (list, tuple)) or not shapes["check"]:
        probs.append(_problem("shapes_bad_check", '`SHAPES["check"]` must be a non-empty list of shapes'))
    if "bench" not in shapes:
        probs.append(_problem("shapes_no_bench", '`SHAPES` has no "bench" shape'))
    return probs


def run(args):
    """Load the task and list its problems; the reply dict."""
    try:
        task = load_task(args.task)
    except HarnessError as e:
        if e.kind != protocol.TASK_LOAD:
            raise
        prob = _problem(e.extra.get("problem", "load_error"), str(e), e.extra.get("line"))
        return protocol.failure("validate", e.kind, str(e), kind=None, kernels=[], problems=[prob])
    probs = task_problems(task)
    kernels = [{"name": n, "line": line} for n, _, line in task.kernels]
    facts = {"kind": task.kind, "kernels": kernels, "shapes": task.shapes if isinstance(task.shapes, dict) else None,
             "tolerance": task.tolerance if _is_tolerance(task.tolerance) else None,
             "has_flops": callable(task.flops), "has_bytes": callable(task.bytes)}
    if probs:
        return protocol.failure("validate", TASK_INVALID, probs[0]["message"], problems=probs, **facts)
    return protocol.result("validate", problems=[], **facts)
