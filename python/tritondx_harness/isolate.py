"""Running a candidate's launch in a forked child that the checking process
never lets back in.

A candidate is code nobody reviewed (an LLM's reply, a rewrite). If it ran in
the process that judges it, it could replace the comparison, the reference,
the timers or the poison, and pass. So `check --candidate` forks: the child
makes the inputs (before any candidate code is imported, and sends a copy of
them at once), imports the candidate, runs its launch on every case and
sends the outputs back; the parent -- the judge -- never imports the
candidate, computes the references itself from the inputs it received and
compares. What the child does to its own copy of the interpreter stays
there.

The child also:
  * writes to a capped pipe instead of stdout/stderr (a flood kills it), and
    never holds the descriptor the reply is written to;
  * reports whether the timers and the harness's functions are still the
    ones it had before the import (a candidate that replaces them is
    rejected even where the check alone would not notice);
  * runs launch a second time on the same tensors with new values written
    into them in place, so a result cached on the inputs' identity shows.
On a GPU the judge must not touch CUDA before the fork (a CUDA context does
not survive one): the child makes the inputs on the device, sends CPU copies,
and the judge moves them back to the device only after the child has ended.
The judge becomes a subreaper, so a process the candidate leaves behind --
even one that left the process group with setsid() -- comes back to it and
is killed, and the candidate is rejected for it.

Frames on the data channel (a Unix socket pair): 8-byte little-endian
length, then torch.save bytes of a dict, read back with weights_only=True
(lists, dicts, numbers, strings only). Tensors do not travel in the frames:
the child writes each one into memfds of its own (at most CHUNK bytes each,
under the sandbox's largest-file limit), seals them against any later
write, and passes the descriptors over the socket (SCM_RIGHTS); the frame
holds {"__tensor__": [slots], "dtype", "shape"}. The judge reads a tensor
out of its sealed memfds with one copy, instead of the pickling and pipe
copies a bench-size input took (seconds per check on the H200). An input
memfd that is not sealed is refused: the candidate, imported after the
inputs were sent, cannot change them under the judge.
"""
import ctypes
import io
import os
import fcntl
import select
import signal
import socket
import struct
import sys
import time
import traceback

from . import gpulock, protocol
from .common import as_outputs, clone_values, same_signature, signature_text
from .protocol import describe_exception, where

FRAME = struct.Struct("<Q")
# Bytes the candidate may write to stdout and stderr together.
NOISE_CAP = 1 << 20
# Bytes of frames and tensors the judge accepts in all.
DATA_CAP = 1 << 32
# Largest memfd a tensor is written into (the sandbox caps a file at 1 GiB).
CHUNK = 1 << 29
# Descriptors the judge accepts in all.
FD_CAP = 4096
_SEALS = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
_DTYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8", "uint8",
           "int16", "int32", "int64", "bool", "float8_e4m3fn", "float8_e5m2", "uint16", "uint32", "uint64")
PR_SET_CHILD_SUBREAPER = 36

# What a candidate must leave alone: (label, getter). The getters run before
# the candidate is imported and after its last launch; a different object
# means it was replaced.
WATCHED = (
    ("torch.cuda.Event", lambda m: m["torch"].cuda.Event),
    ("torch.cuda.Event.record", lambda m: m["torch"].cuda.Event.record),
    ("torch.cuda.Event.elapsed_time", lambda m: m["torch"].cuda.Event.elapsed_time),
    ("torch.cuda.Event.synchronize", lambda m: m["torch"].cuda.Event.synchronize),
    ("torch.cuda.synchronize", lambda m: m["torch"].cuda.synchronize),
    ("time.perf_counter", lambda m: m["time"].perf_counter),
    ("time.perf_counter_ns", lambda m: m["time"].perf_counter_ns),
    ("time.monotonic", lambda m: m["time"].monotonic),
    ("time.time", lambda m: m["time"].time),
    ("triton.testing.do_bench", lambda m: m["testing"].do_bench),
    ("torch.empty", lambda m: m["torch"].empty),
    ("torch.empty_like", lambda m: m["torch"].empty_like),
    ("tritondx_harness.check.compare", lambda m: m["check"].compare),
    ("tritondx_harness.check.poisoned_allocations", lambda m: m["check"].poisoned_allocations),
    ("tritondx_harness.gpu.time_interleaved", lambda m: m["gpu"].time_interleaved),
    ("tritondx_harness.gpu._time_interleaved", lambda m: m["gpu"]._time_interleaved),
    ("tritondx_harness.gpulock.exclusive", lambda m: m["gpulock"].exclusive),
    ("tritondx_harness.isolate.run_cases", lambda m: m["isolate"].run_cases),
)


def _watched_modules():
    """The modules WATCHED reads from."""
    import torch
    import triton.testing
    from . import check, gpu
    return {"torch": torch, "time": time, "testing": triton.testing, "check": check, "gpu": gpu,
            "gpulock": gpulock, "isolate": sys.modules[__name__]}


def snapshot():
    """{label: object} of everything in WATCHED."""
    mods = _watched_modules()
    out = {}
    for label, get in WATCHED:
        try:
            out[label] = get(mods)
        except Exception:  # noqa: BLE001 - not there in this build
            out[label] = None
    return out


def replaced(before):
    """Labels of WATCHED whose object is no longer the one in `before`."""
    now = snapshot()
    return [label for label, _ in WATCHED if now.get(label) is not before.get(label)]


# ---------------------------------------------------------------- frames

def _memfd(data):
    """A sealed memfd holding the bytes of data (a memoryview)."""
    fd = os.memfd_create("tdx-tensor", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view, off = data, 0
    while off < len(view):
        off += os.pwrite(fd, view[off:], off)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
    return fd


def _pack(obj, fds):
    """obj with every tensor replaced by its descriptor; the tensors' bytes
    go into new sealed memfds appended to fds."""
    import torch
    if isinstance(obj, torch.Tensor):
        t = obj.detach().to("cpu").contiguous()
        raw = t.reshape(-1).view(torch.uint8).numpy() if t.numel() else None
        slots = []
        if raw is not None:
            data = memoryview(raw).cast("B")
            for start in range(0, len(data), CHUNK):
                slots.append(len(fds))
                fds.append(_memfd(data[start:start + CHUNK]))
        return {"__tensor__": slots, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)}
    if isinstance(obj, dict):
        return {k: _pack(v, fds) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_pack(v, fds) for v in obj)
    return obj


def _send(sock, obj):
    """Write one frame. Its tensors' memfds ride along with its first bytes
    (SCM_RIGHTS, at most 250 a message); a frame names them by their place
    among all the descriptors this socket has carried (slot)."""
    import torch
    fds = []
    try:
        base = _SENT[0]
        obj = _pack(obj, fds)
        obj = _shift(obj, base)
        buf = io.BytesIO()
        torch.save(obj, buf)
        data = FRAME.pack(len(buf.getbuffer())) + buf.getvalue()
        pos = 0
        for i in range(0, len(fds), 250):
            pos += socket.send_fds(sock, [data[pos:pos + 1]], fds[i:i + 250])
        _SENT[0] += len(fds)
        sock.sendall(data[pos:])
    finally:
        for fd in fds:
            os.close(fd)


# Descriptors this process has sent over its data socket.
_SENT = [0]


def _shift(obj, base):
    """obj with every descriptor's slots moved up by base."""
    if isinstance(obj, dict):
        if "__tensor__" in obj:
            return dict(obj, __tensor__=[base + k for k in obj["__tensor__"]])
        return {k: _shift(v, base) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_shift(v, base) for v in obj)
    return obj


class _Tensors:
    """The memfds the judge received, in order, and the bytes it read from them."""

    def __init__(self):
        self.fds = []
        self.read = 0
        self.bad = 0

    def close(self):
        """Close every descriptor."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []

    def tensor(self, desc):
        """The tensor a descriptor names, read out of its sealed memfds; None
        when the descriptor is malformed, a memfd is unsealed or the bytes
        do not match the dtype and shape."""
        import torch
        slots, name, shape = desc.get("__tensor__"), desc.get("dtype"), desc.get("shape")
        if not isinstance(slots, list) or name not in _DTYPES or not isinstance(shape, list) or \
                not all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < (1 << 40) for d in shape):
            return None
        dtype = getattr(torch, name, None)
        if dtype is None:
            return None
        count = 1
        for d in shape:
            count *= d
        nbytes = count * torch.empty((), dtype=dtype).element_size()
        if self.read + nbytes > DATA_CAP:
            return None
        buf = bytearray(nbytes)
        view, off = memoryview(buf), 0
        for slot in slots:
            if not isinstance(slot, int) or not 0 <= slot < len(self.fds):
                return None
            fd = self.fds[slot]
            try:
                if fcntl.fcntl(fd, fcntl.F_GET_SEALS) & _SEALS != _SEALS:
                    return None
                size = os.fstat(fd).st_size
            except OSError:
                return None
            if off + size > nbytes:
                return None
            got = os.preadv(fd, [view[off:off + size]], 0) if size else 0
            if got != size:
                return None
            off += size
        if off != nbytes:
            return None
        self.read += nbytes
        if not nbytes:
            return torch.empty(shape, dtype=dtype)
        return torch.frombuffer(buf, dtype=torch.uint8).view(dtype).reshape(shape)

    def unpack(self, obj):
        """obj with every descriptor replaced by its tensor (a bad one by None)."""
        if isinstance(obj, dict):
            if "__tensor__" in obj:
                t = self.tensor(obj)
                self.bad += t is None
                return t
            return {k: self.unpack(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return type(obj)(self.unpack(v) for v in obj)
        return obj


def _cpu(values):
    """CPU copies of the tensors in a list (other values kept): what a case
    returned, as it was when it returned. A GPU tensor's copy to the host is
    that copy already; a CPU tensor is cloned."""
    import torch
    return [(v.detach().clone() if v.device.type == "cpu" else v.detach().to("cpu"))
            if isinstance(v, torch.Tensor) else v for v in values]


def _nonfinite(v):
    """Whether a floating-point tensor holds a NaN or an infinity."""
    import torch
    return isinstance(v, torch.Tensor) and (v.is_floating_point() or v.is_complex()) and \
        not bool(torch.isfinite(v).all())


def _parse_frames(data):
    """The dicts in a byte string of complete frames (a torn tail is dropped)."""
    import torch
    out, pos = [], 0
    while pos + FRAME.size <= len(data):
        (n,) = FRAME.unpack_from(data, pos)
        if pos + FRAME.size + n > len(data):
            break
        blob = bytes(data[pos + FRAME.size:pos + FRAME.size + n])
        pos += FRAME.size + n
        try:
            obj = torch.load(io.BytesIO(blob), weights_only=True, map_location="cpu")
        except Exception:  # noqa: BLE001 - a forged or broken frame is ignored
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


# ---------------------------------------------------------------- the child

# Landlock (see src/proc/proc_landlock.c for the same ruleset in C).
_LL_WRITE = (1 << 1) | (1 << 4) | (1 << 5) | (0x7f << 6)  # write, remove, make-*
_LL_REFER, _LL_TRUNCATE = 1 << 13, 1 << 14
_LL_SCOPE_ALL = (1 << 0) | (1 << 1)
_SYS_CREATE, _SYS_ADD, _SYS_RESTRICT = 444, 445, 446  # x86-64 and arm64 alike
PR_SET_NO_NEW_PRIVS = 38


def confine_self():
    """Put this process in a Landlock domain of its own, nested in the one
    tritondx may have made: it may write only under $TMPDIR (and open device
    nodes), and it cannot ptrace, signal or reach the abstract sockets of the
    judge, which stays outside. Best effort: False where Landlock is missing."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        L = ctypes.c_long  # every syscall argument as a full register
        abi = libc.syscall(L(_SYS_CREATE), None, L(0), L(1))
        if abi < 1:
            return False
        handled = _LL_WRITE | (_LL_REFER if abi >= 2 else 0) | (_LL_TRUNCATE if abi >= 3 else 0)
        attr = struct.pack("<QQQ", handled, 0, _LL_SCOPE_ALL if abi >= 6 else 0)
        size = 24 if abi >= 6 else 8
        buf = ctypes.create_string_buffer(attr, len(attr))
        fd = libc.syscall(L(_SYS_CREATE), buf, L(size), L(0))
        if fd < 0:
            return False
        try:
            for path, rights in ((os.environ.get("TMPDIR"), handled),
                                 ("/dev", (1 << 1) | (_LL_TRUNCATE if abi >= 3 else 0))):
                if not path or not os.path.isdir(path):
                    continue
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:
                    rule = ctypes.create_string_buffer(struct.pack("<Qi", rights, pfd), 12)
                    libc.syscall(L(_SYS_ADD), L(fd), L(1), rule, L(0))
                finally:
                    os.close(pfd)
            if libc.prctl(L(PR_SET_NO_NEW_PRIVS), L(1), L(0), L(0), L(0)) != 0:
                return False
            return libc.syscall(L(_SYS_RESTRICT), L(fd), L(0)) == 0
        finally:
            os.close(fd)
    except Exception:  # noqa: BLE001 - confinement is a second layer only
        return False


def run_cases(cand, inputs, reuse, device, between=None):
    """Run the candidate's launch on every case (NaN poison, then marker
    poison), and the in-place reuse run; returns the results frame.
    between() runs before every case but the first and before the reuse run."""
    from .check import _run_launch, _sync, poisoned_allocations
    results = []
    held = []  # every case's input copies, alive until the reuse run is done
    for i, ins in enumerate(inputs):
        if i and between is not None:
            between()
        r = {}
        try:
            outs, damage = _run_launch(cand.launch, ins, device, "nan", keep=held)
            nonfinite = any(_nonfinite(o) for o in outs)  # where they are: a GPU's test is quick
            r["outputs"] = _cpu(outs)
            r["damage"] = damage
            if nonfinite:
                # a second run with a finite poison tells unwritten from NaN
                marker, _ = _run_launch(cand.launch, ins, device, "marker", keep=held)
                r["marker"] = _cpu(marker)
        except SystemExit as e:
            r["error"] = f"the candidate called exit({e.code!r})"
            r["reason"] = "exit"
        except Exception as e:  # noqa: BLE001
            r["error"] = f"launch raised {describe_exception(e)}{where(e)}"
            r["reason"] = "raised"
        results.append(r)
    reuse_out = None
    if reuse is not None:
        if between is not None:
            between()
        first, second = reuse
        import torch
        try:
            with poisoned_allocations("nan"):
                xs = clone_values(inputs[first])
                cand.launch(*xs)
                _sync(device)
                for a, b in zip(xs, inputs[second]):
                    if isinstance(a, torch.Tensor):
                        a.copy_(b)
                reuse_out = _cpu(as_outputs(cand.launch(*xs)))
                _sync(device)
        except BaseException:  # noqa: BLE001 - the cases already say what went wrong
            reuse_out = None
    del held
    return {"kind": "results", "cases": results, "reuse": reuse_out}


def _one_cpu_thread():
    """torch's CPU ops run on one thread in a forked child. The judge may
    have used libgomp's thread pool before the fork (the float64 reference
    of an earlier case, a large copy), and the pool does not survive fork:
    the child's first parallel region -- cloning an input of a few MB --
    would wait at its barrier for threads that exist only in the parent,
    for ever. With one thread ATen runs every region inline."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _turns(turn):
    """The child's side of the judge's turns (run_candidate): a callable that
    asks the judge to give the GPU lock a turn and returns once the judge
    holds it again, or None when the judge holds none."""
    if turn is None:
        return None
    ask_w, go_r = turn

    def between():
        os.write(ask_w, b"t")
        if os.read(go_r, 1) != b"g":
            os._exit(4)  # the judge is gone
    return between


def _child(task, candidate, plan, device, dtype, reuse, data_w, noise_w, turn=None):
    """The forked child's whole life; never returns."""
    code = 0
    try:
        gpulock.forget()  # the judge's lock is the judge's
        between = _turns(turn)
        _one_cpu_thread()
        os.dup2(noise_w, 1)
        os.dup2(noise_w, 2)
        reply = protocol.reply_fd()
        if reply is not None:
            os.close(reply)
        inputs = [task.inputs(shape, device, seed, dtype) for shape, seed in plan]
        _send(data_w, {"kind": "inputs", "inputs": [_cpu(i) for i in inputs]})
        if between is not None:
            between()  # the candidate's import next: CPU work
        if os.environ.get("TDX_SANDBOX") == "1":
            confine_self()
        before = snapshot()
        from .taskload import load_task
        try:
            cand = load_task(candidate, "candidate", reference_from=task)
        except protocol.HarnessError as e:
            _send(data_w, {"kind": "error", "error_kind": e.kind, "message": str(e)})
            os._exit(0)
        except SystemExit as e:
            _send(data_w, {"kind": "error", "error_kind": "incorrect",
                           "message": f"the candidate called exit({e.code!r}) while it was imported"})
            os._exit(0)
        if cand.launch is None or not callable(cand.launch):
            _send(data_w, {"kind": "error", "error_kind": "incorrect", "reason": "missing_launch",
                           "message": "the candidate has no launch to run"})
            os._exit(0)
        a, b = _signature_fns(task, cand)
        if not same_signature(a, b):
            _send(data_w, {"kind": "error", "error_kind": "incorrect", "reason": "signature",
                           "message": f"the candidate changes launch's signature: {signature_text(b)} "
                                      f"instead of {signature_text(a)}"})
            os._exit(0)
        frame = run_cases(cand, inputs, reuse, device, between)
        frame["replaced"] = replaced(before)
        _send(data_w, frame)
    except BaseException:  # noqa: BLE001 - whatever happens, the child ends here
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
        code = 3
    os._exit(code)


def _last_line(noise):
    """The last non-empty line the child wrote (the exception of a traceback), cut to 300 characters."""
    for line in reversed(noise.decode("utf-8", "replace").splitlines()):
        if line.strip():
            return line.strip()[:300]
    return ""


def _signature_fns(task, cand):
    """The callables whose signatures must match (see check._signature_fns)."""
    from .check import _signature_fns as fns
    return fns(task, cand)


# ---------------------------------------------------------------- the judge

def _children():
    """Pids of this process's children (orphans adopted as a subreaper included)."""
    pids = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{tid}/children") as f:
                    pids.update(int(p) for p in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    if not pids:  # kernels without the children file: scan /proc
        me = os.getpid()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == me:
                pids.add(int(name))
    return pids


def _kill_strays(known):
    """Kill and reap every child of ours not in `known`; how many there were."""
    strays = set()
    for _ in range(20):
        found = _children() - known
        if not found:
            break
        strays |= found
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
    return len(strays)


def _become_subreaper():
    """Adopt orphans of our descendants (Linux 3.4+); False when refused."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except Exception:  # noqa: BLE001
        return False


def run_candidate(task, candidate, plan, device, dtype=None, reuse=None, role="the candidate", timeout_s=None):
    """Run the candidate in a forked child over plan [(shape, seed)...]
    (killed after timeout_s seconds when given).

    Returns {"inputs": [...], "cases": [...], "reuse": outputs or None,
    "failure": (reason, message) or None}. inputs are the ones the child
    made before it imported the candidate. role names the code in messages
    ("the candidate"; "the task" when a task is checked against itself)."""
    _become_subreaper()
    known = _children()
    data_r, data_w = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    noise_r, noise_w = os.pipe()
    # turns: while the judge holds the GPU lock shared for the child, the
    # child asks for a turn (a byte on ask) between its cases; the judge lets
    # go of the lock and takes it again (gpulock.yield_turn: a timing waiting
    # for it runs then) and answers on go; the child waits for the answer
    turns = gpulock.mode() == "shared"
    ask_r = ask_w = go_r = go_w = None
    if turns:
        ask_r, ask_w = os.pipe()
        go_r, go_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        data_r.close()
        os.close(noise_r)
        if turns:
            os.close(ask_r)
            os.close(go_w)
        _child(task, candidate, plan, device, dtype, reuse, data_w, noise_w, (ask_w, go_r) if turns else None)
    data_w.close()
    os.close(noise_w)
    if turns:
        os.close(ask_w)
        os.close(go_r)
        # a candidate that asks for turns and never reads the answers must
        # not block the judge on a full pipe: answers that do not fit are dropped
        os.set_blocking(go_w, False)
    tensors = _Tensors()
    data = bytearray()
    noise = 0
    tail = b""  # the last bytes the child wrote: its traceback when it dies
    flood = over = False
    status = None
    fds = [data_r.fileno(), noise_r]
    drain_until = None
    deadline = time.monotonic() + timeout_s if timeout_s else None
    # what the turns' waits may add to the limit in all (the candidate's code
    # can ask for turns too): the limit once more at most
    allowance = float(timeout_s or 0.0)
    asking = [ask_r] if turns else []
    lock_error = None
    timed_out = False
    # until the child has ended, even when it closed its pipes early (a
    # candidate that closes them and loops is still cut at the limit)
    while fds or status is None:
        if deadline is not None and status is None and not timed_out and time.monotonic() > deadline:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
        ready, _, _ = select.select(fds + asking, [], [], 0.05)
        if asking and ask_r in ready:
            ready.remove(ask_r)
            asked = os.read(ask_r, 64)
            if not asked:
                asking = []
            for _ in asked:
                if lock_error is not None:
                    break
                try:
                    waited = min(gpulock.yield_turn(), allowance)
                except protocol.HarnessError as e:  # the lock's own wait limit
                    lock_error = e
                    os.kill(pid, signal.SIGKILL)
                    break
                allowance -= waited
                if deadline is not None:
                    deadline += waited
                try:
                    os.write(go_w, b"g")
                except OSError:
                    pass
        for fd in ready:
            if fd == noise_r:
                chunk = os.read(fd, 1 << 20)
            else:
                try:
                    chunk, got_fds, _, _ = socket.recv_fds(data_r, 1 << 20, 253)
                except OSError:
                    chunk, got_fds = b"", []
                tensors.fds.extend(got_fds)
                if len(tensors.fds) > FD_CAP and not over:
                    over = True
                    os.kill(pid, signal.SIGKILL)
            if not chunk:
                fds.remove(fd)
                continue
            if fd == noise_r:
                if noise < NOISE_CAP:
                    os.write(2, chunk[:NOISE_CAP - noise])
                tail = (tail + chunk)[-4096:]
                noise += len(chunk)
                if noise > NOISE_CAP and not flood:
                    flood = True
                    os.kill(pid, signal.SIGKILL)
            else:
                data += chunk
                if len(data) > DATA_CAP and not over:
                    over = True
                    os.kill(pid, signal.SIGKILL)
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
                drain_until = time.monotonic() + 0.5
        elif time.monotonic() > drain_until:
            break  # a stray process holds the pipes open; it is killed below
    if status is None:
        _, status = os.waitpid(pid, 0)
    data_r.close()
    os.close(noise_r)
    if turns:
        os.close(ask_r)
        os.close(go_w)
    strays = _kill_strays(known | {pid})
    if lock_error is not None:
        tensors.close()
        raise lock_error
    frames = []
    try:
        for fr in _parse_frames(data):
            tensors.bad = 0
            fr = tensors.unpack(fr)
            frames.append((fr, tensors.bad))
    finally:
        tensors.close()
    got = {"inputs": None, "cases": None, "reuse": None, "failure": None, "replaced": []}
    unreadable = None
    for fr, bad in frames:
        kind = fr.get("kind")
        if bad and kind in ("inputs", "results") and unreadable is None:
            unreadable = kind
        if kind == "inputs" and got["inputs"] is None:
            got["inputs"] = fr.get("inputs")
        elif kind == "error" and got["failure"] is None:
            got["failure"] = (str(fr.get("reason") or fr.get("error_kind") or "error"),
                              str(fr.get("message")), str(fr.get("error_kind") or "incorrect"))
        elif kind == "results" and got["cases"] is None:
            got["cases"] = fr.get("cases")
            got["reuse"] = fr.get("reuse")
            got["replaced"] = [str(x) for x in fr.get("replaced") or []]
    failure = None
    if timed_out:
        failure = ("timeout", f"{role} timed out after {timeout_s:g} s")
    elif flood:
        failure = ("flood", f"{role} wrote more than {NOISE_CAP >> 20} MiB to stdout/stderr")
    elif over:
        failure = ("flood", f"{role} sent more data than its outputs can take")
    elif got["cases"] is None and got["failure"] is None:
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = "SIG?"
            failure = ("crashed", f"{role} was killed by signal {sig} ({name})")
        else:
            last = _last_line(tail)
            failure = ("exited", f"{role} exited with status {os.WEXITSTATUS(status)} "
                                 "before it returned its outputs" + (f": {last}" if last else ""))
    elif unreadable == "inputs":
        failure = ("protocol", "the inputs came back unreadable (a tensor's memfd unsealed, short or "
                               "over the size cap)")
    elif unreadable:
        failure = ("protocol", f"{role} sent back an unreadable tensor (a memfd unsealed, short or "
                               "over the size cap)")
    elif strays:
        failure = ("stray_process", f"{role} left {strays} process{'es' if strays > 1 else ''} "
                                    "running after it returned (killed)")
    elif got["replaced"]:
        failure = ("tampered", f"{role} replaced " + ", ".join(got["replaced"][:4]) +
                   " (timers and the harness are not its to change)")
    elif got["failure"] is not None:
        failure = got["failure"]
    if failure is None and (not isinstance(got["inputs"], list) or not isinstance(got["cases"], list)
                            or len(got["inputs"]) != len(plan) or len(got["cases"]) != len(plan)):
        failure = ("protocol", "the candidate's process sent back an incomplete answer")
    got["failure"] = failure
    return got
