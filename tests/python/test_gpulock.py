"""gpulock: processes that share one GPU -- shared for running kernels,
exclusive for timing, writers first, no unbounded wait, nothing held by a
forked candidate. Each holder is a real process (flock is per open file)."""
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import PYDIR
from tritondx_harness import gpulock
from tritondx_harness.protocol import HarnessError

HOLD = """
import os, sys, time
sys.path.insert(0, {pydir!r})
from tritondx_harness import gpulock
mode, secs, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
t0 = time.monotonic()
try:
    with (gpulock.exclusive() if mode == "exclusive" else gpulock.shared()):
        got = time.monotonic() - t0
        open(ready, "w").write("%.3f" % got)
        time.sleep(secs)
except Exception as e:
    open(ready, "w").write("error " + str(e))
"""

UPGRADE = """
import sys, time
sys.path.insert(0, {pydir!r})
from tritondx_harness import gpulock
ready = sys.argv[3]
try:
    with gpulock.shared():
        time.sleep(0.5)
        with gpulock.exclusive():
            assert gpulock.mode() == "exclusive"
            time.sleep(0.5)
        assert gpulock.mode() == "shared"
    open(ready, "w").write("ok")
except Exception as e:
    open(ready, "w").write("error " + repr(e))
"""


def _holder(tmp_path, name, mode, secs, wait=None):
    """Start a process that takes the lock in `mode` and keeps it `secs` s;
    returns (process, file it writes once it holds the lock)."""
    ready = str(tmp_path / f"{name}.ready")
    env = dict(os.environ)
    if wait is not None:
        env[gpulock.WAIT_ENV] = str(wait)
    p = subprocess.Popen([sys.executable, "-c", HOLD.format(pydir=PYDIR), mode, str(secs), ready], env=env)
    return p, ready


def _wait_file(path, timeout=30.0):
    t0 = time.monotonic()
    while not os.path.exists(path) or not open(path).read():
        assert time.monotonic() - t0 < timeout, f"{path} never written"
        time.sleep(0.01)
    return open(path).read()


def test_off_without_the_variable(monkeypatch):
    monkeypatch.delenv(gpulock.ENV, raising=False)
    with gpulock.exclusive():
        assert gpulock.mode() is None
    with gpulock.shared():
        assert gpulock.mode() is None


def test_shared_holders_overlap(lock, tmp_path):
    p, ready = _holder(tmp_path, "a", "shared", 2.0)
    _wait_file(ready)
    t0 = time.monotonic()
    with gpulock.shared():
        assert gpulock.mode() == "shared"
        assert time.monotonic() - t0 < 1.0
    assert gpulock.mode() is None
    p.wait(timeout=30)


def test_exclusive_waits_for_a_shared_holder(lock, tmp_path):
    p, ready = _holder(tmp_path, "a", "shared", 1.0)
    _wait_file(ready)
    t0 = time.monotonic()
    with gpulock.exclusive():
        waited = time.monotonic() - t0
        assert gpulock.mode() == "exclusive"
    assert waited > 0.5, waited
    p.wait(timeout=30)


def test_no_wait_is_unbounded(lock, tmp_path, monkeypatch):
    p, ready = _holder(tmp_path, "a", "exclusive", 5.0)
    _wait_file(ready)
    monkeypatch.setenv(gpulock.WAIT_ENV, "0.3")
    t0 = time.monotonic()
    with pytest.raises(HarnessError) as e:
        with gpulock.shared():
            pass
    assert time.monotonic() - t0 < 3.0
    assert e.value.extra.get("reason") == "gpu_lock"
    assert "was not free within 0.3 s" in str(e.value) and lock in str(e.value)
    p.kill()
    p.wait()


def test_a_waiting_writer_goes_before_new_readers(lock, tmp_path):
    """reader A holds; writer W waits; reader B, arriving after W, must not
    get in before W (else a stream of checks could starve a timing)."""
    a, a_ready = _holder(tmp_path, "a", "shared", 1.5)
    _wait_file(a_ready)
    w, w_ready = _holder(tmp_path, "w", "exclusive", 1.0)
    time.sleep(0.3)  # W is now waiting at the turnstile's far side
    b, b_ready = _holder(tmp_path, "b", "shared", 0.0)
    _wait_file(w_ready)
    _wait_file(b_ready)
    # B got the lock only after W had it: W's file was written first and B
    # waited through W's hold
    assert os.path.getmtime(b_ready) >= os.path.getmtime(w_ready)
    assert float(open(b_ready).read()) > 1.5
    for p in (a, w, b):
        assert p.wait(timeout=30) == 0


def test_two_shared_holders_upgrade_without_deadlock(lock, tmp_path):
    """Each holds shared and asks for exclusive: the shared hold is let go
    first, so both get it in turn."""
    code = UPGRADE.format(pydir=PYDIR)
    procs = []
    for name in ("a", "b"):
        ready = str(tmp_path / f"{name}.ready")
        procs.append((subprocess.Popen([sys.executable, "-c", code, "x", "0.5", ready]), ready))
    for p, ready in procs:
        assert p.wait(timeout=30) == 0
        assert not _wait_file(ready).startswith("error"), open(ready).read()


def test_a_forked_child_that_forgets_leaves_the_parent_holding(lock, tmp_path, monkeypatch):
    with gpulock.shared():
        pid = os.fork()
        if pid == 0:
            gpulock.forget()
            os._exit(0 if gpulock.ENV not in os.environ and gpulock.mode() is None else 1)
        _, st = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(st) == 0
        # the parent's shared hold is still in force: a writer cannot get in
        p, ready = _holder(tmp_path, "w", "exclusive", 0.0, wait=0.5)
        assert p.wait(timeout=30) == 0
        assert _wait_file(ready).startswith("error"), open(ready).read()
    p, ready = _holder(tmp_path, "w2", "exclusive", 0.0, wait=5)
    assert p.wait(timeout=30) == 0
    assert not _wait_file(ready).startswith("error")


def test_exclusive_inside_shared_returns_to_shared(lock):
    with gpulock.shared():
        with gpulock.exclusive():
            assert gpulock.mode() == "exclusive"
            with gpulock.exclusive():
                assert gpulock.mode() == "exclusive"
        assert gpulock.mode() == "shared"
    assert gpulock.mode() is None


HOLD_AT = """
import sys, time
sys.path.insert(0, {pydir!r})
from tritondx_harness import gpulock
with gpulock.exclusive():
    open(sys.argv[1], "w").write("%.3f" % time.time())
    time.sleep(0.2)
"""


def test_a_check_gives_a_waiting_timing_its_turn_between_cases(lock, tmp_path):
    """The judge holds the lock shared for its candidate's child; the child
    asks for a turn between its cases, so a timing that wants the lock
    exclusively gets it during the check, not after it."""
    from conftest import task
    from tritondx_harness import isolate
    from tritondx_harness.taskload import load_task
    with open(task("add.py"), encoding="utf-8") as f:
        text = f.read()
    cand = tmp_path / "slow.py"
    cand.write_text(text + "\n\ndef launch(x, y):\n    import time\n    time.sleep(0.4)\n    return x + y\n")
    t = load_task(task("add.py"))
    plan = [((64,), seed) for seed in range(6)]
    got_at = tmp_path / "got"
    with gpulock.shared():
        holder = subprocess.Popen([sys.executable, "-c", HOLD_AT.format(pydir=PYDIR), str(got_at)])
        got = isolate.run_candidate(t, str(cand), plan, "cpu", timeout_s=60)
        end = time.time()
    holder.wait(timeout=30)
    assert got["failure"] is None, got["failure"]
    assert len(got["cases"]) == 6
    # six cases of 0.4 s: the timing ran well before the last one ended
    assert float(got_at.read_text()) < end - 0.8


FLOOD_TURNS = """
import json, sys, time
sys.path.insert(0, {pydir!r})
from tritondx_harness import gpulock, isolate
from tritondx_harness.taskload import load_task
t = load_task({task!r})
with gpulock.shared():
    t0 = time.monotonic()
    got = isolate.run_candidate(t, {cand!r}, [((64,), 0), ((64,), 1)], "cpu", timeout_s=20)
print(json.dumps({{"failure": got["failure"], "seconds": time.monotonic() - t0}}))
"""

# every pipe the candidate can write to (but its stdout) gets asks for turns
# it never waits for
FLOODER = '''

_FLOODED = []


def launch(x, y):
    import os, stat, time
    out = os.fstat(1).st_ino
    for _ in range(0 if _FLOODED else 40):
        for fd in range(3, 256):
            try:
                st = os.fstat(fd)
                if not stat.S_ISFIFO(st.st_mode) or st.st_ino == out:
                    continue
                os.set_blocking(fd, False)
                os.write(fd, b"t" * 65536)
            except OSError:
                pass
        time.sleep(0.2)
    _FLOODED.append(1)
    time.sleep(600)  # alive, so only the judge's own limit can end it
    return x + y
'''


def test_a_candidate_that_floods_the_turn_pipe_does_not_hang_the_judge(lock, tmp_path):
    from conftest import task
    with open(task("add.py"), encoding="utf-8") as f:
        text = f.read()
    cand = tmp_path / "flood.py"
    cand.write_text(text + FLOODER)
    code = FLOOD_TURNS.format(pydir=PYDIR, task=task("add.py"), cand=str(cand))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # the judge never blocked on the answers nobody reads: its limit ended the child
    assert out["failure"][0] == "timeout" and out["seconds"] < 80, out


NICE = """
import os, sys
sys.path.insert(0, {pydir!r})
from tritondx_harness import gpulock
print(os.nice(0), gpulock.yield_cpu(), os.nice(0), gpulock.yield_cpu(), os.nice(0))
"""


@pytest.mark.parametrize("env,want", [
    ({"TRITONDX_GPU_LOCK": "LOCK"}, "0 10 10 None 10"),               # once, to 10; a second call leaves it
    ({"TRITONDX_GPU_LOCK": "LOCK", "TRITONDX_NICE": "3"}, "0 3 3 None 3"),
    ({"TRITONDX_GPU_LOCK": "LOCK", "TRITONDX_NICE": "0"}, "0 None 0 None 0"),
    ({}, "0 None 0 None 0"),                                          # no lock: one process, nothing to yield to
], ids=["lock", "nice-3", "nice-0", "no-lock"])
def test_yield_cpu_lowers_priority_only_beside_other_processes(env, want, tmp_path):
    e = {k: v for k, v in os.environ.items() if k not in ("TRITONDX_GPU_LOCK", "TRITONDX_NICE")}
    e.update({k: str(tmp_path / v) if v == "LOCK" else v for k, v in env.items()})
    r = subprocess.run([sys.executable, "-c", NICE.format(pydir=PYDIR)], capture_output=True, text=True,
                       env=e, timeout=60, preexec_fn=lambda: os.setpriority(os.PRIO_PROCESS, 0, 0))
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == want.split()


NICE_TASK = '''import os
import torch
import triton
import triton.language as tl


def _niced():
    if os.nice(0) < 10:
        raise RuntimeError("running at niceness %d" % os.nice(0))


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.arange(0, BLOCK)
    tl.store(y_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2, mask=o < n)


def launch(x):
    _niced()
    y = torch.empty_like(x)
    double[(1,)](x, y, x.numel(), BLOCK=8)
    return y


def reference(x):
    return x * 2


def make_inputs(shape, dtype=torch.float32, device="cpu", seed=0):
    _niced()
    return (torch.ones(shape, dtype=dtype, device=device),)


SHAPES = {"bench": (8,), "check": [(8,)]}
'''


def test_the_check_verb_runs_its_task_below_the_timers(tmp_path):
    """With the GPU lock on, the check verb (which never times) runs the task's inputs and its
    launch at niceness 10; without it at the default, where this task refuses to run."""
    task = tmp_path / "niced.py"
    task.write_text(NICE_TASK)
    base = {k: v for k, v in os.environ.items() if k not in ("TRITONDX_GPU_LOCK", "TRITONDX_NICE")}
    base["PYTHONPATH"] = PYDIR + os.pathsep + base.get("PYTHONPATH", "")
    replies = []
    for lock in (str(tmp_path / "lock"), None):
        e = dict(base, **({"TRITONDX_GPU_LOCK": lock} if lock else {}))
        r = subprocess.run([sys.executable, "-m", "tritondx_harness", "check", "--task", str(task), "--device",
                            "cpu", "--seeds", "0"], capture_output=True, text=True, env=e, timeout=300,
                           preexec_fn=lambda: os.setpriority(os.PRIO_PROCESS, 0, 0))
        replies.append(json.loads(r.stdout))
    assert replies[0]["ok"] is True, replies[0]
    assert replies[1]["ok"] is False and "niceness 0" in json.dumps(replies[1]), replies[1]
