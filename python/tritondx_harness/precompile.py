"""Compiling a launch's kernels before the GPU lock is taken.

Under the GPU lock (gpulock) a check holds the lock shared for its whole
run, and Triton compiles each kernel on its first launch, inside that hold:
the compile is CPU work, but while it runs a timing of another process
waits. warm() moves that CPU work out of the hold. It forks a child that
never starts CUDA (CUDA_VISIBLE_DEVICES is emptied before anything can),
imports the files there, runs each launch with its kernel calls recorded
instead of run (intercept.record_launches, the capture verb's aot path) on
inputs made on the "meta" device (or the CPU, for small shapes and for tasks
whose make_inputs cannot make meta tensors), and compiles each distinct
specialization for GPUTarget("cuda", 90, 32) with Triton's own binder and
compile call -- the same ASTSource and options the JIT builds, so the
compile lands in Triton's cache (TRITON_CACHE_DIR, which the check's and
the timing's children share) under the key the JIT looks up later.

It is only ever a head start: nothing it produces is read but Triton's
cache, every failure in it is ignored (the real run compiles what it did
not), and its child is killed after LIMIT_S seconds. The child is confined
like a candidate's (no GPU lock, write access under $TMPDIR only under the
sandbox); processes it leaves behind are killed.

Ownership: warm() owns its child, pipe and strays; the caller owns nothing
it returns but a plain dict.
"""
import json
import os
import select
import signal
import sys
import time

from . import gpulock

# Seconds the compiling child may take before it is killed.
LIMIT_S = 120.0
# Inputs of at most this many bytes are made on the CPU (their data
# pointers then carry the real alignment); larger ones on "meta".
CPU_BYTES = 64 << 20
# Bytes of the child's reply.
REPLY_CAP = 1 << 16
ENV = "TDX_PRECOMPILE"


def enabled():
    """warm() runs only where it can save lock time: the lock is on and
    TDX_PRECOMPILE is not 0."""
    return bool(gpulock.enabled()) and os.environ.get(ENV, "1") != "0"


def _nbytes(values):
    import torch
    return sum(v.numel() * v.element_size() for v in values if isinstance(v, torch.Tensor))


def _inputs(task, shape, dtype):
    """Inputs for shape: CPU ones when small (or meta fails), else meta."""
    try:
        meta = task.inputs(shape, "meta", 0, dtype)
    except Exception:  # noqa: BLE001 - make_inputs without meta support
        meta = None
    if meta is not None and _nbytes(meta) > CPU_BYTES:
        return meta
    return task.inputs(shape, "cpu", 0, dtype)


def _specs(task, cands, shapes, dtype, target):
    """Distinct compile specs of every candidate's launch on every shape."""
    from .compile import kernel_specs_from_launches
    from .intercept import record_launches
    specs = {}
    for shape in shapes:
        try:
            inputs = _inputs(task, shape, dtype)
        except Exception:  # noqa: BLE001
            continue
        for cand in cands:
            with record_launches(0) as launches:
                try:
                    cand.launch(*inputs)
                except Exception:  # noqa: BLE001 - launches seen before it still count
                    pass
            try:
                found = kernel_specs_from_launches(launches, target)
            except Exception:  # noqa: BLE001
                continue
            for s in found:
                specs.setdefault(s.key(), s)
    return list(specs.values())


def _compile_all(specs, target):
    """Compile each spec into Triton's cache; (compiled, failed)."""
    import triton
    from triton.compiler import ASTSource
    done = failed = 0
    first = None
    for s in specs:
        try:
            triton.compile(ASTSource(s.fn, s.signature, s.constexprs, s.attrs), target=target,
                           options=s.options.__dict__)
            done += 1
        except Exception as e:  # noqa: BLE001 - the real run reports its own compile errors
            failed += 1
            if first is None:
                from .protocol import describe_exception
                first = f"{s.name}: {describe_exception(e)}"[:300]
    return done, failed, first


def _child(task_path, files, shapes, dtype, res_w):
    """The compiling child's whole life; never returns."""
    code = 0
    try:
        gpulock.forget()
        gpulock.yield_cpu()
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        from .isolate import _one_cpu_thread
        _one_cpu_thread()
        from . import protocol
        reply = protocol.reply_fd()
        if reply is not None:
            try:
                os.close(reply)
            except OSError:  # closed already (trial's timer child)
                pass
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        if os.environ.get("TDX_SANDBOX") == "1":
            from .isolate import confine_self
            confine_self()
        from .compile import target_for
        from .taskload import interpreter, load_task
        from .common import bench_shape
        with interpreter(False):
            task = load_task(task_path)
            if shapes is None:
                shapes = [bench_shape(task)]
            cands = []
            for f in files:
                try:
                    cands.append(task if os.path.abspath(f) == os.path.abspath(task_path)
                                 else load_task(f, "candidate", reference_from=task))
                except BaseException:  # noqa: BLE001 - the real check reports it
                    pass
            target = target_for("aot")
            specs = _specs(task, cands, shapes, dtype, target)
            done, failed, first = _compile_all(specs, target)
        os.write(res_w, json.dumps({"kernels": done, "failed": failed, "first_failure": first}).encode("ascii"))
    except BaseException as e:  # noqa: BLE001 - whatever happens, the child ends here
        code = 3
        try:
            from .protocol import describe_exception
            os.write(res_w, json.dumps({"error": describe_exception(e)[:300]}).encode("ascii"))
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code)


def warm(task_path, files, shapes=None, dtype=None, limit_s=LIMIT_S):
    """Compile what each of `files` (task files; the task itself may be one)
    would compile on each of `shapes` (None: the task's bench shape), in a
    forked child, before the caller takes the GPU lock. The caller must not
    have started CUDA. Returns
    {"kernels": compiled, "failed": n, "seconds": s, "error": None or why},
    with "first_failure" (the first compile error) when one failed."""
    from .isolate import _become_subreaper, _children, _kill_strays
    t0 = time.monotonic()
    out = {"kernels": 0, "failed": 0, "seconds": 0.0, "error": None}
    _become_subreaper()
    known = _children()
    res_r, res_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(res_r)
        _child(task_path, list(files), None if shapes is None else list(shapes), dtype, res_w)
    os.close(res_w)
    data = b""
    deadline = t0 + limit_s
    reading = [res_r]  # until the pipe's end: a child that closes it early is still waited for
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            out["error"] = f"killed after {limit_s:g} s"
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            break
        ready, _, _ = select.select(reading, [], [], min(left, 0.05))
        if not reading:
            time.sleep(min(left, 0.05))
        if ready:
            chunk = os.read(res_r, REPLY_CAP)
            if chunk:
                data = (data + chunk)[:REPLY_CAP]
            else:
                reading = []
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            if reading and select.select([res_r], [], [], 0)[0]:
                data = (data + os.read(res_r, REPLY_CAP))[:REPLY_CAP]
            break
    os.close(res_r)
    _kill_strays(known | {pid})
    try:
        got = json.loads(data.decode("ascii"))
        if got.get("error") and out["error"] is None:
            out["error"] = "the compiling child failed: " + str(got["error"])
        out["kernels"] = int(got["kernels"])
        out["failed"] = int(got["failed"])
        if got.get("first_failure"):
            out["first_failure"] = str(got["first_failure"])
    except (ValueError, KeyError, TypeError, AttributeError):
        if out["error"] is None:
            out["error"] = "the compiling child ended without a reply"
    out["seconds"] = round(time.monotonic() - t0, 3)
    return out
