"""`trial` (GPU): check a candidate and, when it passes, time it against the
current best, in one interpreter -- the two steps a candidate goes through
in the optimize loop, without a second Python start, CUDA start and compile
of the same kernels (about 4-6 s a candidate on the H200).

The checking works exactly as `check --candidate` (the candidate runs in a
forked child, the judge never imports it). The timing runs in a second
child, forked first, before anything here touches CUDA (a CUDA context does
not survive a fork): it waits until the judge has its verdict and runs the
`time` verb's code only if the candidate passed. The timer child shares the
private directory and its Triton cache with the check's child, so the
candidate's kernels compiled there are not compiled again. The judge's
reply is written by the judge, never by a process that imported the
candidate; the timing numbers come from the timer child, as the `time`
verb's do.

Reply: the check's reply with verb "trial", plus "check_s", "time" (the
time verb's reply, or null when the check failed) and "time_s", and of
those seconds the ones spent waiting for the GPU lock (gpulock):
"check_lock_wait_s" (the judge's) and "time_lock_wait_s" (the timer's;
null when it did not run).
"""
import argparse
import gc
import json
import os
import select
import signal
import time

from . import gpulock, protocol
from .protocol import HarnessError, describe_exception

# Bytes the timer child's reply may take.
REPLY_CAP = 1 << 20
# "waiting for the GPU lock" / "got it", sent by the timer child before its
# reply (a JSON reply starts with "{")
WAIT_NOTE = b"\x01wait "
# How many times a timing takes the GPU lock, at most (timing.py: shared,
# exclusive, and each again after an exclusive hold)
LOCK_TAKES = 4


def add_args(p):
    """Options of the trial verb."""
    p.add_argument("--task", required=True, help="the original task (reference, inputs, shapes)")
    p.add_argument("--candidate", required=True)
    p.add_argument("--baseline", help="time the candidate against this file (default: time it alone)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="cpu: the check through the interpreter; the timing then fails (no GPU)")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--bench-shape", action="store_true", help="also check SHAPES['bench'] once")
    p.add_argument("--check-timeout", type=float, default=300.0,
                   help="seconds the candidate's checking child may take")
    p.add_argument("--time-timeout", type=float, default=300.0, help="seconds the timing may take")
    p.add_argument("--budget-ms", type=float, default=300.0)


def _time_args(args):
    """The time verb's options for this trial."""
    from . import timing
    p = argparse.ArgumentParser(add_help=False)
    timing.add_args(p)
    argv = ["--no-reference", "--budget-ms", str(args.budget_ms)]
    if args.baseline:
        argv += ["--task", args.baseline, "--candidate", args.candidate]
    else:
        argv += ["--task", args.candidate]
    return p.parse_args(argv)


def _timer(args, go_r, res_w):
    """The timer child's whole life: wait for the verdict, time, send the reply."""
    code = 0
    try:
        fd = protocol.reply_fd()
        if fd is not None:
            os.close(fd)
        from . import precompile, timing
        targs = _time_args(args)
        pre = None
        if args.baseline and precompile.enabled():
            # the baseline's compiles while the check runs (the candidate's
            # are the check's own); the timing then finds them in the cache
            pre = precompile.warm(targs.task, [targs.task], dtype=None)
        if os.read(go_r, 1) != b"y":
            os._exit(0)
        # each wait for the GPU lock goes to the parent as a note before the
        # reply: the timing's limit counts the GPU work, not other tasks' turns
        gpulock.on_wait(lambda event: os.write(res_w, WAIT_NOTE + event.encode("ascii") + b"\n"))
        try:
            out = timing.run(targs, warm=False)
        except HarnessError as e:
            fields = {k: v for k, v in e.extra.items() if k not in ("ok", "verb", "protocol")}
            out = protocol.failure("time", e.kind, str(e), **fields)
        except SystemExit as e:
            out = protocol.failure("time", protocol.TASK_ERROR, f"the code called exit({e.code!r}) while timed")
        except Exception as e:  # noqa: BLE001
            out = protocol.failure("time", protocol.INTERNAL, f"harness error: {describe_exception(e)}")
        if pre is not None and isinstance(out, dict):
            out["precompile"] = pre
        data = json.dumps(protocol.jsonable(out), allow_nan=False).encode("utf-8")
        view = memoryview(data)
        while view:
            view = view[os.write(res_w, view):]
    except BaseException:  # noqa: BLE001 - whatever happens, the child ends here
        code = 3
    os._exit(code)


def _take_wait_notes(data):
    """Strip the complete wait notes at the front of data; the events they
    carry ("wait", "got"), in order."""
    events = []
    while data.startswith(WAIT_NOTE):
        end = data.find(b"\n")
        if end < 0:
            break
        events.append(data[len(WAIT_NOTE):end].decode("ascii", "replace"))
        del data[:end + 1]
    return events


def _wait_reply(pid, res_r, timeout_s, waits=None):
    """The timer child's reply (a dict), or a failure reply when it died,
    timed out or sent something else. waits (a list) receives the seconds of
    each of the child's waits for the GPU lock. While the child waits for the GPU lock
    (between its "wait" and "got" notes) its limit stands still: the waits
    are bounded by the lock's own limit (gpulock), and so is what they may
    add in all, since the timer child's code could write notes of its own."""
    data, deadline, timed_out = bytearray(), time.monotonic() + timeout_s, False
    allowance = LOCK_TAKES * gpulock.wait_limit_s() if gpulock.enabled() else 0.0
    waiting_since = None  # the child waits for the lock: its limit stands still
    status, drain_until = None, None
    reading = [res_r]  # until the pipe's end; then the child's end is still waited for, within the limit
    while True:
        now = time.monotonic()
        paused = min(now - waiting_since, allowance) if waiting_since is not None else 0.0
        if now > deadline + paused:
            timed_out = True
            break
        ready, _, _ = select.select(reading, [], [], 0.05)
        if ready:
            chunk = os.read(res_r, 1 << 16)
            if not chunk:
                reading = []
                if status is not None:
                    break
                continue
            data += chunk
            for event in _take_wait_notes(data):
                now = time.monotonic()
                if event == "wait" and waiting_since is None:
                    waiting_since = now
                elif event == "got" and waiting_since is not None:
                    if waits is not None:
                        waits.append(now - waiting_since)
                    waited = min(now - waiting_since, allowance)
                    deadline += waited
                    allowance -= waited
                    waiting_since = None
            if len(data) > REPLY_CAP:
                break
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status, drain_until = st, time.monotonic() + 0.5
                if not reading:
                    break
        elif time.monotonic() > drain_until:
            break  # a process it left behind holds the pipe open; killed by the caller
    if status is None:
        if timed_out or len(data) > REPLY_CAP:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _, status = os.waitpid(pid, 0)
    if timed_out:
        return protocol.failure("time", protocol.TASK_ERROR, f"timing timed out after {timeout_s:g} s",
                                reason="timeout")
    if len(data) > REPLY_CAP:
        return protocol.failure("time", protocol.INCORRECT, "the timing process sent more than its reply can take",
                                reason="flood")
    try:
        out = json.loads(bytes(data).decode("utf-8"))
    except ValueError:
        out = None
    if not isinstance(out, dict) or out.get("verb") != "time" or not isinstance(out.get("ok"), bool):
        how = (f"was killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
               else f"exited with status {os.WEXITSTATUS(status)}")
        return protocol.failure("time", protocol.TASK_ERROR, f"the timing process {how} before it replied",
                                reason="crashed")
    return out


def run(args):
    """Check, then time when the check passed."""
    from . import check, isolate
    # torch and Triton are imported before the fork, so that neither child
    # imports them again (about 4-5 s each on the GPU machine); neither
    # starts CUDA on import
    import torch  # noqa: F401
    import triton  # noqa: F401
    seeds = tuple(int(s) for s in args.seeds.split(",") if s.strip())
    isolate._become_subreaper()
    known = isolate._children()
    go_r, go_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        os.close(res_r)
        _timer(args, go_r, res_w)
    os.close(go_r)
    os.close(res_w)
    known.add(pid)
    # the judge checks and never times: the cores go to the processes that
    # do (its timer child, forked above, keeps the default priority)
    gpulock.yield_cpu()
    t0 = time.monotonic()
    try:
        reply = check.check_task(args.task, device=args.device, seeds=seeds, candidate=args.candidate,
                                 bench_shape=args.bench_shape, timeout_s=args.check_timeout)
    except BaseException:
        os.close(go_w)
        os.close(res_r)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    check_s = time.monotonic() - t0
    reply = dict(reply, verb="trial", check_s=round(check_s, 3), time=None, time_s=None,
                 check_lock_wait_s=round(gpulock.waited_s(), 3), time_lock_wait_s=None)
    if not reply.get("ok"):
        os.close(go_w)
        os.close(res_r)
        # it may be compiling the baseline still (precompile.py): no reason to wait
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        isolate._kill_strays(known)
        return reply
    # the judge's own GPU memory goes back before anything is timed
    gc.collect()
    if torch.cuda.is_initialized():
        torch.cuda.empty_cache()
    t1 = time.monotonic()
    os.write(go_w, b"y")
    os.close(go_w)
    waits = []
    try:
        reply["time"] = _wait_reply(pid, res_r, args.time_timeout, waits)
    finally:
        os.close(res_r)
    reply["time_s"] = round(time.monotonic() - t1, 3)
    reply["time_lock_wait_s"] = round(sum(waits), 3)
    strays = isolate._kill_strays(known)
    if strays and reply["time"].get("ok"):
        reply["time"] = protocol.failure("time", protocol.INCORRECT,
                                         f"the candidate left {strays} process{'es' if strays > 1 else ''} "
                                         "running after it was timed (killed)", reason="stray_process")
    return reply
