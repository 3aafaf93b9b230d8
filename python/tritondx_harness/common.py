"""Small helpers shared by the verbs: dtype names, shapes on the command
line, outputs as lists, signatures of launch."""
import inspect
import json

_DTYPE_ALIASES = {
    "fp32": "float32", "f32": "float32", "float": "float32",
    "fp16": "float16", "f16": "float16", "half": "float16",
    "bf16": "bfloat16", "fp64": "float64", "f64": "float64", "double": "float64",
    "tf32": "float32",
}


def parse_dtype(name):
    """A torch dtype from a name such as float16, fp16 or bf16 (None stays None)."""
    if name is None:
        return None
    import torch
    canon = _DTYPE_ALIASES.get(name.lower(), name.lower())
    dt = getattr(torch, canon, None)
    if not isinstance(dt, torch.dtype):
        from .protocol import USAGE, HarnessError
        raise HarnessError(USAGE, f"unknown dtype {name!r}")
    return dt


def parse_shape(text):
    """A shape from the command line: "8192,8192", "[7, 1000]" or "default"."""
    if text is None:
        return None
    t = text.strip()
    if t.startswith("[") or t.startswith("("):
        val = json.loads(t.replace("(", "[").replace(")", "]"))
        return tuple(val) if isinstance(val, list) else val
    if "," in t or t.isdigit():
        return tuple(int(x) for x in t.split(",") if x.strip())
    return t


def shape_label(shape):
    """A shape as JSON: a list for tuples, else the value."""
    if isinstance(shape, (list, tuple)):
        return [shape_label(x) for x in shape]
    return shape


def as_outputs(value):
    """launch/reference results as a list: a tuple/list stays, one value is wrapped."""
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def signature_text(fn):
    """`launch(x, y, eps=1e-05)` style text of a callable's signature."""
    try:
        return f"{getattr(fn, '__name__', 'launch')}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return repr(fn)


def same_signature(a, b):
    """Whether two callables take the same parameters (names, kinds, defaults)."""
    try:
        pa = list(inspect.signature(a).parameters.values())
        pb = list(inspect.signature(b).parameters.values())
    except (TypeError, ValueError):
        return True
    if len(pa) != len(pb):
        return False
    for x, y in zip(pa, pb):
        if x.name != y.name or x.kind != y.kind:
            return False
        if repr(x.default) != repr(y.default):
            return False
    return True


def tensor_bytes(values):
    """Bytes of every tensor in `values` (nested lists/tuples allowed)."""
    import torch
    total = 0
    for v in values:
        if isinstance(v, torch.Tensor):
            total += v.numel() * v.element_size()
        elif isinstance(v, (list, tuple)):
            total += tensor_bytes(v)
    return total


def bench_shape(task, text=None):
    """The shape to run: --shape when given, else SHAPES["bench"]; a task
    without either is invalid for the GPU verbs."""
    from .protocol import TASK_INVALID, HarnessError
    if text:
        return parse_shape(text)
    if not callable(task.launch) or not callable(task.make_inputs):
        raise HarnessError(TASK_INVALID, "the task needs launch and make_inputs")
    shapes = task.shapes if isinstance(task.shapes, dict) else {}
    if "bench" not in shapes:
        raise HarnessError(TASK_INVALID, 'the task has no SHAPES["bench"]; pass --shape')
    return shapes["bench"]


def clone_like(v):
    """A copy of tensor v that keeps its strides and its offset into its
    storage, so that a view starting one element into a buffer (a misaligned
    pointer) stays misaligned in the copy. Non-tensors are returned as they are."""
    import torch
    if not isinstance(v, torch.Tensor):
        return v
    off = v.storage_offset()
    if off == 0 and v.is_contiguous():
        return v.clone()
    span = off + 1 + sum((n - 1) * st for n, st in zip(v.shape, v.stride()) if n > 0)
    buf = torch.empty(max(span, off + 1), dtype=v.dtype, device=v.device)
    out = buf.as_strided(v.shape, v.stride(), off)
    out.copy_(v)
    return out


def clone_values(values):
    """clone_like over a tuple of inputs."""
    return tuple(clone_like(v) for v in values)
