"""trial: the check and the timing of a candidate in one interpreter (the
timing in a child forked before CUDA starts, released only after a pass)."""
import argparse
import os
import time

import pytest

from conftest import harness, task
from tritondx_harness import protocol, trial


def test_a_passing_candidate_is_checked_then_handed_to_the_timer():
    """On the CPU the timer child runs the time verb's code, which needs a GPU:
    the check verdict stands and the timing says why it did not run."""
    r = harness("trial", "--task", task("add.py"), "--candidate", task("cand_add_good.py"),
                "--baseline", task("add.py"), "--device", "cpu", "--seeds", "0")
    obj = r.json
    assert r.returncode == 0
    assert obj["verb"] == "trial" and obj["ok"] is True, obj
    assert obj["cases"] and all(c["ok"] for c in obj["cases"])
    assert obj["check_s"] > 0
    assert obj["time"]["verb"] == "time" and obj["time"]["ok"] is False
    assert obj["time"]["error_kind"] == protocol.NO_GPU


def test_a_failing_candidate_is_never_timed():
    r = harness("trial", "--task", task("add.py"), "--candidate", task("cand_add_fp16.py"),
                "--device", "cpu", "--seeds", "0")
    obj = r.json
    assert obj["verb"] == "trial" and obj["ok"] is False and obj["error"]
    assert obj["time"] is None and obj["time_s"] is None


def _args(**kw):
    a = argparse.Namespace(task=task("add.py"), candidate=task("cand_add_good.py"), baseline=None, device="cpu",
                           seeds="0", bench_shape=False, check_timeout=120.0, time_timeout=30.0,
                           budget_ms=10.0)
    for k, v in kw.items():
        setattr(a, k, v)
    return a


def _fake_timing(monkeypatch, fn):
    """Replace the time verb's code (the forked timer child inherits it)."""
    from tritondx_harness import timing
    monkeypatch.setattr(timing, "run", fn)


def test_the_timer_reply_is_passed_on(monkeypatch):
    seen = {}

    def fake(targs, warm=True):
        seen.update(vars(targs))
        return protocol.result("time", variants={"candidate": {"median_ms": 1.5}}, task=targs.task)
    _fake_timing(monkeypatch, fake)
    out = trial.run(_args(baseline=task("add.py")))
    assert out["ok"] is True
    assert out["time"]["ok"] is True and out["time"]["variants"]["candidate"]["median_ms"] == 1.5
    assert out["time"]["task"] == task("add.py")
    assert out["time_s"] >= 0
    assert not seen  # it ran in the child, not here


def test_the_time_args_time_the_candidate_against_the_baseline_or_alone():
    a = trial._time_args(_args(baseline="/b.py"))
    assert a.task == "/b.py" and a.candidate == task("cand_add_good.py") and a.no_reference
    a = trial._time_args(_args())
    assert a.task == task("cand_add_good.py") and a.candidate is None


def test_a_timer_that_hangs_is_killed(monkeypatch):
    _fake_timing(monkeypatch, lambda targs, warm=True: time.sleep(60))
    t0 = time.monotonic()
    out = trial.run(_args(time_timeout=1.0))
    assert time.monotonic() - t0 < 30
    assert out["ok"] is True
    assert out["time"]["ok"] is False and out["time"]["reason"] == "timeout"


HOLD_EXCLUSIVE = """
import sys, time
sys.path.insert(0, {pydir!r})
from tritondx_harness import gpulock
with gpulock.exclusive():
    open(sys.argv[1], "w").write("held")
    time.sleep(float(sys.argv[2]))
"""


def test_waiting_for_the_gpu_lock_does_not_count_against_the_timing_limit(monkeypatch, tmp_path):
    """Another task's timing holds the GPU for 8 s; this timing's own work
    takes no time and its limit is 1.5 s: the wait is not counted."""
    import subprocess
    import sys
    from conftest import PYDIR
    from tritondx_harness import gpulock
    monkeypatch.setenv(gpulock.ENV, str(tmp_path / "gpu.lock"))
    ready = tmp_path / "held"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_EXCLUSIVE.format(pydir=PYDIR), str(ready), "8"])
    try:
        t0 = time.monotonic()
        while not ready.exists():
            assert time.monotonic() - t0 < 30
            time.sleep(0.01)

        def locked(targs, warm=True):
            with gpulock.exclusive():
                return protocol.result("time", variants={"candidate": {"median_ms": 1.0}})
        _fake_timing(monkeypatch, locked)
        out = trial.run(_args(time_timeout=1.5))
        assert out["time"]["ok"] is True, out["time"]
        assert out["time_s"] > 3  # it did wait for the holder (the check came first)
        # and the reply says how much of it was waiting for the lock
        assert out["time_lock_wait_s"] > 3 and out["time_lock_wait_s"] <= out["time_s"]
        assert out["check_lock_wait_s"] >= 0
    finally:
        holder.wait(timeout=30)
        gpulock.forget()


def test_wait_notes_extend_the_limit_only_by_the_lock_s_own_bound(monkeypatch, tmp_path):
    """A timer child that claims an endless wait (its code could write the
    note itself) gets at most the lock's bound per acquisition on top."""
    from tritondx_harness import gpulock
    monkeypatch.setenv(gpulock.ENV, str(tmp_path / "gpu.lock"))
    monkeypatch.setenv(gpulock.WAIT_ENV, "0.5")

    def forged(targs, warm=True):
        gpulock._waited[0]("wait")  # and never "got"
        time.sleep(60)
    _fake_timing(monkeypatch, forged)
    t0 = time.monotonic()
    out = trial.run(_args(time_timeout=1.0))
    took = time.monotonic() - t0
    assert out["time"]["ok"] is False and out["time"]["reason"] == "timeout"
    assert took < 1.0 + trial.LOCK_TAKES * 0.5 + 20
    gpulock.forget()


def test_wait_notes_are_taken_whole_from_the_front():
    data = bytearray(trial.WAIT_NOTE + b"wait\n" + trial.WAIT_NOTE + b"got\n" + trial.WAIT_NOTE + b"wa")
    assert trial._take_wait_notes(data) == ["wait", "got"]
    assert bytes(data) == trial.WAIT_NOTE + b"wa"  # the rest of a note comes with the next read
    data += b"it\n{\"verb\": \"time\"}"
    assert trial._take_wait_notes(data) == ["wait"] and bytes(data) == b'{"verb": "time"}'


def test_a_timer_that_dies_is_reported(monkeypatch):
    _fake_timing(monkeypatch, lambda targs, warm=True: os._exit(7))
    out = trial.run(_args())
    assert out["time"]["ok"] is False and out["time"]["reason"] == "crashed"
    assert "status 7" in out["time"]["error"]


def test_a_timer_that_raises_gives_a_failure_reply(monkeypatch):
    def boom(targs, warm=True):
        raise protocol.HarnessError(protocol.TASK_ERROR, "timing launch raised ValueError: x")
    _fake_timing(monkeypatch, boom)
    out = trial.run(_args())
    assert out["time"]["ok"] is False and "ValueError" in out["time"]["error"]


def test_a_timer_that_leaves_a_process_behind_fails(monkeypatch):
    def orphan(targs, warm=True):
        if os.fork() == 0:
            os.setsid()
            time.sleep(120)
            os._exit(0)
        return protocol.result("time", variants={})
    _fake_timing(monkeypatch, orphan)
    out = trial.run(_args())
    assert out["time"]["ok"] is False and out["time"]["reason"] == "stray_process"


@pytest.mark.parametrize("name", ["cand_add_fp16.py"])
def test_no_child_is_left_after_a_failed_check(name):
    from tritondx_harness import isolate
    before = isolate._children()
    out = trial.run(_args(candidate=task(name)))
    assert out["ok"] is False
    assert isolate._children() - before == set()


def test_a_check_that_hangs_is_killed_at_its_own_limit(tmp_path):
    cand = tmp_path / "hang.py"
    src = open(task("cand_add_good.py")).read()
    cand.write_text(src.replace("def launch(", "import time\n\n\ndef launch(", 1)
                    .replace("    return", "    time.sleep(600)\n    return", 1))
    t0 = time.monotonic()
    out = trial.run(_args(candidate=str(cand), check_timeout=3.0))
    assert time.monotonic() - t0 < 60
    assert out["ok"] is False and out["reason"] == "timeout" and "timed out after 3 s" in out["error"]
    assert out["time"] is None


def test_the_timer_compiles_the_baseline_while_the_check_runs(monkeypatch, tmp_path):
    """Under the GPU lock the timer child compiles the baseline's kernels
    (precompile.py) before it waits for the verdict, and says so (in a fresh
    process: Triton's interpreter, which this process has run, leaves
    triton.language patched for the CPU and a compile would fail)."""
    from tritondx_harness import gpulock
    monkeypatch.setenv(gpulock.ENV, str(tmp_path / "gpu.lock"))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    r = harness("trial", "--task", task("add.py"), "--candidate", task("cand_add_good.py"),
                "--baseline", task("add.py"), "--device", "cpu", "--seeds", "0")
    obj = r.json
    assert obj["ok"] is True, obj
    t = obj["time"]
    assert t["error_kind"] == protocol.NO_GPU  # the timing itself needs the GPU
    assert t["precompile"]["kernels"] == 1 and t["precompile"]["error"] is None, t["precompile"]
    assert len(os.listdir(tmp_path / "cache")) >= 1


def test_a_timer_that_closes_its_pipe_and_hangs_is_still_cut(monkeypatch):
    """The pipe's end is not the child's end: the limit still holds."""
    def closer(targs, warm=True):
        os.closerange(3, 1024)
        while True:
            pass
    _fake_timing(monkeypatch, closer)
    t0 = time.monotonic()
    out = trial.run(_args(time_timeout=1.0))
    assert time.monotonic() - t0 < 30
    assert out["ok"] is True
    assert out["time"]["ok"] is False and out["time"]["reason"] == "timeout", out["time"]
