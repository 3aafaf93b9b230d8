"""The wire protocol: one JSON object on stdout, everything else on stderr.

The C side parses exactly one JSON object from the child's stdout, so the
real stdout file descriptor is set aside before any user code or Triton runs
and fd 1 is pointed at stderr; prints from the task, from Triton or from C
extensions then land on stderr. The JSON is written last, to the saved fd.
"""
import contextlib
import json
import math
import os
import sys
import tempfile
import types

from . import PROTOCOL_VERSION

# error_kind values (documented in docs/harness-protocol.md).
USAGE = "usage"              # bad command line
TASK_LOAD = "task_load"      # file missing, not Python, syntax error, import raised
TASK_INVALID = "task_invalid"  # loaded, but the task format is not met
TASK_ERROR = "task_error"    # the task's own code raised while running
INCORRECT = "incorrect"      # check ran and the output is wrong
COMPILE = "compile"          # Triton failed to compile a kernel
NO_GPU = "no_gpu"            # the verb needs a CUDA device and there is none
TOOL = "tool"                # an external tool (ptxas, ncu) missing or failed
INTERNAL = "internal"        # a bug in the harness itself


class HarnessError(Exception):
    """A failure with a kind, reported as ok:false instead of a traceback."""

    def __init__(self, kind, message, **extra):
        super().__init__(message)
        self.kind = kind
        self.extra = extra


def one_line(text, limit=2000):
    """Collapse a message to one line of at most `limit` characters."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _compile_error(exc):
    """The innermost Triton CompilationError (an exception with src, node and
    error_message) in exc's chain of causes, or None."""
    found, seen = None, set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if all(hasattr(exc, a) for a in ("src", "node", "error_message")):
            found = exc
        exc = exc.__cause__ or exc.__context__
    return found


def _kernel_def(src):
    """(file, line of its `def`) of the loaded @triton.jit function whose
    source is src, or None."""
    import inspect
    jit = sys.modules.get("triton.runtime.jit")
    kind = getattr(jit, "JITFunction", None)
    if kind is None:
        return None
    for mod in list(sys.modules.values()):
        d = mod.__dict__ if isinstance(mod, types.ModuleType) else {}
        for v in list(d.values()):
            # isinstance first: getattr on an arbitrary object can run code
            if not isinstance(v, kind) or v.src != src:
                continue
            fn = v.fn
            try:
                lines, start = inspect.getsourcelines(fn)
                path = inspect.getsourcefile(fn)
            except (OSError, TypeError):
                continue
            for i, line in enumerate(lines):
                if line.lstrip().startswith("def "):
                    return path, start + i
    return None


def _describe_compile_error(e):
    """One line for a kernel that does not compile: the error, where it is
    in the file (or in the kernel), and that line of the source."""
    node = e.node
    line, col = getattr(node, "lineno", None), getattr(node, "col_offset", None)
    what = one_line(e.error_message or "", 600) or "the kernel does not compile"
    if line is None or not isinstance(e.src, str):
        return f"{type(e).__name__}: {what}"
    text = e.src.split("\n")[line - 1].strip() if 0 < line <= e.src.count("\n") + 1 else ""
    place = _kernel_def(e.src)
    at = f"{place[0]}:{place[1] + line - 1}:{(col or 0) + 1}" if place else f"line {line} of the kernel"
    return f"{type(e).__name__}: {what} at {at}" + (f": `{one_line(text, 200)}`" if text else "")


def describe_exception(exc):
    """`Type: message`, one line, for an exception raised by user code. A
    kernel that does not compile is told by its error and the line of the
    file it stands on, not by Triton's multi-line excerpt."""
    ce = _compile_error(exc)
    if ce is not None:
        try:
            return _describe_compile_error(ce)
        except Exception:  # noqa: BLE001 - fall back to the plain message
            pass
    msg = one_line(str(exc))
    name = type(exc).__name__
    return f"{name}: {msg}" if msg else name


def _library_file(path):
    """Whether a frame's file is Python's or an installed package's (Triton's
    interpreter, torch, this harness), not the task's or a candidate's."""
    here = os.path.dirname(os.path.abspath(__file__))
    libs = {os.path.dirname(os.__file__), here}
    return "/site-packages/" in path or "/dist-packages/" in path or path.startswith("<") or \
        any(path.startswith(d + os.sep) for d in libs)


def where(exc):
    """" (at file:line)": the innermost frame of the user's own code (the task
    or a candidate) along exc and its causes -- where Triton's interpreter
    re-raises a kernel's NameError, the kernel's line -- else the innermost
    frame of exc, or ""."""
    chain, seen = [], set()
    e = exc
    while e is not None and id(e) not in seen and len(chain) < 16:
        seen.add(id(e))
        chain.append(e)
        e = e.__cause__ or e.__context__
    for e in reversed(chain):
        frames = []
        tb = e.__traceback__
        while tb is not None:
            frames.append(tb)
            tb = tb.tb_next
        for f in reversed(frames):
            if not _library_file(f.tb_frame.f_code.co_filename):
                return f" (at {f.tb_frame.f_code.co_filename}:{f.tb_lineno})"
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    return f" (at {last.tb_frame.f_code.co_filename}:{last.tb_lineno})"


def jsonable(value):
    """Make a value JSON-safe: tuples to lists, non-finite floats to strings,
    torch dtypes and other objects to their str()."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return jsonable(value.item())
    return str(value)


def result(verb, /, ok=True, **fields):
    """The common head of every reply."""
    out = {"ok": bool(ok), "verb": verb, "protocol": PROTOCOL_VERSION}
    out.update(fields)
    return out


def failure(verb, error_kind, message, /, **fields):
    """A reply for a failed step: ok false, one-line error and its kind."""
    out = result(verb, ok=False, error=one_line(message), error_kind=error_kind)
    out.update(fields)
    return out


_reply_fd = None


def reply_fd():
    """The descriptor the reply will be written to while a guard is active
    (a forked child running candidate code closes it), else None."""
    return _reply_fd


class StdoutGuard:
    """Keeps fd 1 for the JSON reply and sends every other write to stderr.

    Python-level writes (print) and C-level writes to fd 1 are both caught.
    """

    def __init__(self):
        self.saved_fd = None
        self.saved_stdout = None

    def __enter__(self):
        """Set fd 1 aside and point it (and sys.stdout) at stderr."""
        sys.stdout.flush()
        global _reply_fd
        self.saved_fd = os.dup(1)
        _reply_fd = self.saved_fd
        os.dup2(2, 1)
        self.saved_stdout = sys.stdout
        sys.stdout = sys.stderr
        return self

    def __exit__(self, *exc):
        """Put stdout back."""
        self.restore()
        return False

    def restore(self):
        """Put the saved fd 1 and sys.stdout back (idempotent)."""
        global _reply_fd
        if self.saved_fd is None:
            return
        _reply_fd = None
        try:
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - a broken stderr must not stop the reply
            pass
        os.dup2(self.saved_fd, 1)
        os.close(self.saved_fd)
        self.saved_fd = None
        sys.stdout = self.saved_stdout

    def emit(self, obj):
        """Write the reply as one line of JSON to the real stdout."""
        text = json.dumps(jsonable(obj), allow_nan=False, sort_keys=False) + "\n"
        data = text.encode("utf-8")
        fd = self.saved_fd if self.saved_fd is not None else 1
        while data:
            n = os.write(fd, data)
            data = data[n:]


@contextlib.contextmanager
def capture_fd2():
    """Capture what is written to fd 2 (C++ diagnostics such as MLIR remarks)
    while the block runs; yields a list that receives the text on exit. The
    text is echoed to the real stderr afterwards so nothing is lost."""
    sink = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield sink
        finally:
            try:
                sys.stderr.flush()
            except Exception:  # noqa: BLE001
                pass
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", "replace")
            sink.append(text)
            if text:
                os.write(2, text.encode("utf-8"))
