"""One GPU shared by harness processes that run at the same time (the bench's
parallel tasks), without one process's kernels landing inside another's
timed runs.

With TRITONDX_GPU_LOCK=FILE in the environment, a process that runs kernels
(a check, a first launch, a compile) holds FILE's flock shared, and a process
that measures (the timed repetitions, the ceilings, a profiled launch) holds
it exclusively: while anything is timed, nothing else runs on the GPU, and
checks of different processes still overlap each other. Without the
variable nothing is locked and every call here costs nothing.

A long shared hold gives way between its steps (yield_turn(): a check
between its cases), so a timing waits for one step, not for a whole check.

Writers go first: a second file, FILE.turn, is a turnstile that a reader
passes on its way in and a writer holds while it waits, so a stream of
checks cannot keep a timing waiting for ever. A process that holds the lock
shared and wants it exclusively lets go of the shared lock first (two
processes upgrading at once would otherwise wait for each other).

A process gives its allocator's cached GPU memory back (release_memory())
before it lets go of the lock: the caches of processes that wait hold no
memory another process's check or timing may need (on an H100 one process
held 34 GiB, the size of an attention task's float64 reference at its bench
shape, and another task's check ran out of memory beside it,
bench/RESULTS.md, twenty-eighth session).

No wait is unbounded: after TRITONDX_GPU_LOCK_WAIT seconds (default 900)
the caller gets a HarnessError that says which lock it waited for.

Ownership: the module owns the two file descriptors of its process; a
forked child that must not hold the lock (a candidate) calls forget(),
which closes its copies without releasing the parent's lock.
"""
import contextlib
import fcntl
import os
import sys
import time

from .protocol import TASK_ERROR, HarnessError

ENV = "TRITONDX_GPU_LOCK"
WAIT_ENV = "TRITONDX_GPU_LOCK_WAIT"
NICE_ENV = "TRITONDX_NICE"
KEEP_CACHE_ENV = "TRITONDX_GPU_KEEP_CACHE"

_fds = {"main": None, "turn": None}
_mode = [None]  # None, "shared" or "exclusive"
_waited = [None]  # on_wait's callback
_wait_total = [0.0]  # seconds this process has spent waiting for the lock


def enabled():
    """The lock file, or None when locking is off."""
    return os.environ.get(ENV) or None


def yield_cpu():
    """While harness processes share the machine (the lock is on), a process
    that checks or compiles and never times -- the check verb, the trial's
    judge after it has forked its timer, the precompile child -- lowers its
    CPU priority to TRITONDX_NICE (default 10; 0 leaves it), and so do the
    children it forks afterwards. A timing's interval holds its own host
    launch path (77 us of Python for split-k's three launches on a 77 us
    kernel): a busy core delays it and the timing spreads, which other tasks'
    compiles did on the H200 under eight tasks at once (bench/RESULTS.md,
    fifteenth session). The timing processes keep the default priority.
    Returns the niceness now, or None when left as it was."""
    if not enabled():
        return None
    try:
        want = int(os.environ.get(NICE_ENV, "10"))
    except ValueError:
        want = 10
    want = min(want, 19)
    try:
        now = os.nice(0)
        if want <= now:
            return None
        return os.nice(want - now)
    except OSError:
        return None


def wait_limit_s():
    """The longest one acquisition may wait (TRITONDX_GPU_LOCK_WAIT)."""
    return _wait_s()


def _wait_s():
    try:
        return max(0.0, float(os.environ.get(WAIT_ENV, "900")))
    except ValueError:
        return 900.0


def _open(path):
    # read-only is enough for flock, and works inside the write confinement
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)


def _fd(which):
    if _fds[which] is None:
        path = enabled()
        if which == "turn":
            path += ".turn"
        try:
            _fds[which] = _open(path)
        except OSError as e:
            raise HarnessError(TASK_ERROR, f"cannot open the GPU lock {path}: {e.strerror}",
                               reason="gpu_lock") from None
    return _fds[which]


def _flock(which, op, what):
    """flock with a deadline (polled: flock itself has no timeout)."""
    fd = _fd(which)
    wait = _wait_s()
    deadline = time.monotonic() + wait
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, op | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        if time.monotonic() >= deadline:
            raise HarnessError(TASK_ERROR, f"the GPU lock {enabled()} was not free within {wait:g} s "
                               f"(waiting to {what})", reason="gpu_lock")
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def _take(mode):
    what = "time" if mode == "exclusive" else "run kernels"
    if _waited[0] is not None:
        _waited[0]("wait")
    t0 = time.monotonic()
    try:
        _flock("turn", fcntl.LOCK_EX, what)
        try:
            _flock("main", fcntl.LOCK_EX if mode == "exclusive" else fcntl.LOCK_SH, what)
        finally:
            fcntl.flock(_fds["turn"], fcntl.LOCK_UN)
    finally:
        _wait_total[0] += time.monotonic() - t0
    _mode[0] = mode
    if _waited[0] is not None:
        _waited[0]("got")


def on_wait(fn):
    """Call fn("wait") before each acquisition and fn("got") once it holds
    the lock (None: no calls). A watchdog that limits GPU work uses it to
    leave the waits for other processes' turns out of its count."""
    _waited[0] = fn


def release_memory(on_drop=False):
    """Give the CUDA caching allocator's unused blocks back to the driver,
    when this process has torch imported and CUDA started; the tensors
    still alive keep theirs. Returns whether it emptied the cache. On
    letting go of the lock (on_drop), TRITONDX_GPU_KEEP_CACHE=1 keeps the
    cache (to measure what giving it back costs)."""
    torch = sys.modules.get("torch")
    if on_drop and os.environ.get(KEEP_CACHE_ENV) == "1":
        return False
    try:
        if torch is None or not torch.cuda.is_initialized():
            return False
        torch.cuda.empty_cache()
        return True
    except Exception:  # noqa: BLE001 - a broken context gives nothing back
        return False


def _drop():
    release_memory(on_drop=True)
    fcntl.flock(_fds["main"], fcntl.LOCK_UN)
    _mode[0] = None


@contextlib.contextmanager
def shared():
    """Hold the lock at least shared for the block (no-op when off or held)."""
    if not enabled() or _mode[0] is not None:
        yield
        return
    _take("shared")
    try:
        yield
    finally:
        _drop()


@contextlib.contextmanager
def exclusive():
    """Hold the lock exclusively for the block; a shared hold around it is
    given up first and taken again after."""
    if not enabled() or _mode[0] == "exclusive":
        yield
        return
    before = _mode[0]
    if before is not None:
        _drop()
    _take("exclusive")
    try:
        yield
    finally:
        _drop()
        if before is not None:
            _take(before)


def yield_turn():
    """Between two steps of a long shared hold (the cases of a check): let go
    of the shared lock and take it again, so that a timing waiting for it
    exclusively runs now instead of after the whole hold. Returns the
    seconds spent waiting (0.0 when nothing is held shared)."""
    if _mode[0] != "shared":
        return 0.0
    t0 = time.monotonic()
    _drop()
    _take("shared")
    return time.monotonic() - t0


def waited_s():
    """Seconds this process has spent waiting for the lock so far."""
    return _wait_total[0]


def mode():
    """None, "shared" or "exclusive": what this process holds now."""
    return _mode[0]


def forget():
    """In a forked child: close the inherited descriptors without releasing
    the parent's lock, and take the variable out of the environment, so that
    the child's code neither holds nor finds the lock."""
    for which in ("main", "turn"):
        if _fds[which] is not None:
            try:
                os.close(_fds[which])
            except OSError:
                pass
            _fds[which] = None
    _mode[0] = None
    os.environ.pop(ENV, None)
