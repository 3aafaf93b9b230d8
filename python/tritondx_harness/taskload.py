"""Loading a task file into a fresh module namespace, and the KernelBench
adapter that gives a KernelBench problem the shape of a task.

A loaded task is a `Task`: the module, its kind ("task" | "kernelbench"),
and the entry points launch / reference / make_inputs / SHAPES, each None
when the file does not define it. Nothing here judges the task; validate.py
lists what is missing.
"""
import ast
import contextlib
import hashlib
import importlib.util
import inspect
import os
import sys

from .protocol import TASK_LOAD, HarnessError, describe_exception

_loaded = 0


def use_interpreter(on):
    """Select Triton's CPU interpreter for kernels decorated from now on.

    Triton reads TRITON_INTERPRET when @triton.jit runs (knobs.runtime.interpret
    is an env_bool read on access), so this must be set before the task loads.
    """
    if on:
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)


@contextlib.contextmanager
def interpreter(on):
    """use_interpreter(on) for the duration of a block, then restore.

    When on, kernels that were decorated before the interpreter was selected
    (Triton's own tl.standard functions when triton was imported earlier in
    this process, or a helper module imported earlier) are JITFunctions that
    cannot run on the CPU; while the block runs, their launches and device
    calls are routed to an InterpretedFunction of the same Python function.
    """
    old = os.environ.get("TRITON_INTERPRET")
    use_interpreter(on)
    if on:
        from .interp_fixes import fix_bf16_dot
        fix_bf16_dot()
    patch = _route_jit_to_interpreter() if on else contextlib.nullcontext()
    try:
        with patch:
            yield
    finally:
        if old is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = old


@contextlib.contextmanager
def _route_jit_to_interpreter():
    """Make JITFunction.run / __call__ behave as InterpretedFunction's."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    saved_run, saved_call = JITFunction.run, JITFunction.__call__

    def interpreted(jf):
        """The InterpretedFunction standing in for a JITFunction (cached on it)."""
        fn = jf.__dict__.get("_tdx_interpreted")
        if fn is None:
            fn = InterpretedFunction(jf.fn)
            jf.__dict__["_tdx_interpreted"] = fn
        return fn

    def run(self, *args, grid, warmup, **kwargs):
        """A launch, interpreted."""
        return interpreted(self).run(*args, grid=grid, warmup=warmup, **kwargs)

    def call(self, *args, **kwargs):
        """A device-function call from an interpreted kernel."""
        return interpreted(self)(*args, **kwargs)

    JITFunction.run, JITFunction.__call__ = run, call
    try:
        yield
    finally:
        JITFunction.run, JITFunction.__call__ = saved_run, saved_call


def read_source(path):
    """The file's text; HarnessError(task_load) when it is not a Python file
    or has a syntax error (with its line)."""
    if not os.path.isfile(path):
        raise HarnessError(TASK_LOAD, f"{path}: no such file", problem="not_found")
    with open(path, "rb") as f:
        raw = f.read()
    if not path.endswith(".py") or b"\0" in raw:
        raise HarnessError(TASK_LOAD, f"{path}: not a Python file (expected a .py source file)",
                           problem="not_python")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HarnessError(TASK_LOAD, f"{path}: not a Python file (not UTF-8 text: {e.reason})",
                           problem="not_python") from None
    try:
        ast.parse(text, filename=path)
    except SyntaxError as e:
        raise HarnessError(TASK_LOAD, f"{path}:{e.lineno}:{e.offset or 0}: syntax error: {e.msg}",
                           problem="syntax_error", line=e.lineno, col=e.offset) from None
    return text


def load_module(path, role="task"):
    """Import the file at `path` as a new module with a name of its own, so
    two loads (a task and its candidate) never share globals."""
    global _loaded
    path = os.path.abspath(path)
    read_source(path)
    _loaded += 1
    digest = hashlib.sha1(path.encode()).hexdigest()[:8]
    name = f"tdx_{role}_{digest}_{_loaded}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - SystemExit from a task is a failure too
        sys.modules.pop(name, None)
        line = _user_line(e, path)
        where = f"{path}:{line}: " if line else f"{path}: "
        raise HarnessError(TASK_LOAD, f"{where}importing the task raised {describe_exception(e)}",
                           problem="import_error", line=line) from None
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(folder)
    return module


def _user_line(exc, path):
    """The last traceback line that lies in the task file, or None."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == path:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def find_kernels(module):
    """Triton kernels defined in the module: (name, object, def line), in
    source order. Autotune/heuristics wrappers count as their kernel."""
    found = []
    for attr, obj in vars(module).items():
        fn = jit_function(obj)
        if fn is None:
            continue
        if getattr(fn.fn, "__module__", None) != module.__name__:
            continue  # imported from elsewhere, not this task's kernel
        try:
            line = inspect.getsourcelines(fn.fn)[1]
        except (OSError, TypeError):
            line = None
        found.append((attr, obj, line))
    found.sort(key=lambda t: t[2] or 0)
    return found


def jit_function(obj):
    """The JITFunction (or InterpretedFunction) under `obj`, unwrapping
    Autotuner / Heuristics; None when `obj` is not a Triton kernel."""
    try:
        from triton.runtime.jit import JITFunction
        from triton.runtime.autotuner import Autotuner, Heuristics
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # pragma: no cover - Triton is required
        return None
    seen = 0
    while isinstance(obj, (Autotuner, Heuristics)) and seen < 8:
        obj = obj.fn
        seen += 1
    if isinstance(obj, (JITFunction, InterpretedFunction)):
        return obj
    return None


class Task:
    """One loaded task: what the harness calls, whatever the file's kind."""

    def __init__(self, path, module, kind):
        self.path = os.path.abspath(path)
        self.module = module
        self.kind = kind
        self.launch = getattr(module, "launch", None)
        self.reference = getattr(module, "reference", None)
        # what a PyTorch user would write for the same operation on the
        # task's dtype: the fair torch baseline (reference may compute in float64)
        self.torch_impl = getattr(module, "torch_impl", None)
        self.make_inputs = getattr(module, "make_inputs", None)
        self.shapes = getattr(module, "SHAPES", None)
        self.tolerance = getattr(module, "TOLERANCE", None)
        self.flops = getattr(module, "flops", None)
        self.bytes = getattr(module, "bytes", None)
        self.kernels = find_kernels(module)

    def kernel_names(self):
        """Names of the task's kernels, in source order."""
        return [name for name, _, _ in self.kernels]

    def inputs(self, shape, device, seed, dtype=None):
        """make_inputs called with keywords; dtype only when asked."""
        kwargs = {"device": device, "seed": seed}
        if dtype is not None:
            kwargs["dtype"] = dtype
        out = self.make_inputs(shape, **kwargs)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def is_kernelbench(module):
    """A KernelBench problem: class Model, get_inputs, get_init_inputs."""
    return (inspect.isclass(getattr(module, "Model", None))
            and callable(getattr(module, "get_inputs", None))
            and callable(getattr(module, "get_init_inputs", None)))


def load_task(path, role="task", reference_from=None):
    """Load a task or KernelBench file. `reference_from` (a Task) supplies the
    KernelBench reference model when loading a KernelBench candidate."""
    module = load_module(path, role)
    if is_kernelbench(module) or (reference_from is not None and reference_from.kind == "kernelbench"):
        return KernelBenchTask(path, module, reference_from)
    return Task(path, module, "task")


class KernelBenchTask(Task):
    """A KernelBench problem seen as a task.

    reference = Model(*get_init_inputs()) run in float64 where it can be;
    launch = ModelNew(*get_init_inputs()) with Model's seeded weights copied
    in, so both compute with the same parameters. KernelBench problems have
    one fixed input shape, named "default".
    """

    SEED = 0

    def __init__(self, path, module, reference_from=None):
        super().__init__(path, module, "kernelbench")
        self._ref_src = reference_from.module if reference_from is not None else module
        self._device = None
        self._ref_model = None
        self._new_model = None
        self.shapes = {"bench": "default", "check": ["default"]}
        self.tolerance = getattr(module, "TOLERANCE", None)
        self.make_inputs = self._make_inputs
        self.reference = self._reference if inspect.isclass(getattr(self._ref_src, "Model", None)) else None
        self.launch = self._launch if inspect.isclass(getattr(module, "ModelNew", None)) else None
        self.torch_impl = self._torch_impl if self.reference is not None else None

    def _make_inputs(self, shape, dtype=None, device="cuda", seed=0):
        """get_inputs() under a seed, on the device, in the asked dtype."""
        import torch
        torch.manual_seed(seed)
        out = self._ref_src.get_inputs()
        out = tuple(out) if isinstance(out, (list, tuple)) else (out,)
        res = []
        for x in out:
            if isinstance(x, torch.Tensor):
                if dtype is not None and x.is_floating_point():
                    x = x.to(dtype)
                x = x.to(device)
            res.append(x)
        self._build(device)
        return tuple(res)

    def _build(self, device):
        """Both models, once per device, from the same init inputs and seed."""
        if self._device == device:
            return
        import copy
        import torch
        torch.manual_seed(self.SEED)
        init = list(self._ref_src.get_init_inputs())
        torch.manual_seed(self.SEED)
        ref = self._ref_src.Model(*init)
        new = None
        if inspect.isclass(getattr(self.module, "ModelNew", None)):
            torch.manual_seed(self.SEED)
            new = self.module.ModelNew(*init)
            # Same weights whatever the constructors draw: copy Model's state in.
            new.load_state_dict(ref.state_dict(), strict=False)
            new = new.to(device).eval()
        ref = ref.to(device).eval()
        try:
            ref64 = copy.deepcopy(ref).double()
        except Exception:  # noqa: BLE001 - keep the native-precision model
            ref64 = None
        self._ref_model = (ref, ref64)
        self._new_model = new
        self._device = device

    def _reference(self, *inputs):
        """Model's output, in float64 when the model and inputs allow it."""
        import torch
        ref, ref64 = self._ref_model
        with torch.no_grad():
            if ref64 is not None:
                try:
                    ins = [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                           for x in inputs]
                    return ref64(*ins)
                except Exception:  # noqa: BLE001 - op without float64 support
                    pass
            return ref(*inputs)

    def _launch(self, *inputs):
        """ModelNew's output."""
        import torch
        with torch.no_grad():
            return self._new_model(*inputs)

    def _torch_impl(self, *inputs):
        """Model's output in the inputs' own precision: the problem as written."""
        import torch
        with torch.no_grad():
            return self._ref_model[0](*inputs)
