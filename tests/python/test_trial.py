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

    def fake(targs):
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
    _fake_timing(monkeypatch, lambda targs: time.sleep(60))
    t0 = time.monotonic()
    out = trial.run(_args(time_timeout=1.0))
    assert time.monotonic() - t0 < 30
    assert out["ok"] is True
    assert out["time"]["ok"] is False and out["time"]["reason"] == "timeout"


def test_a_timer_that_dies_is_reported(monkeypatch):
    _fake_timing(monkeypatch, lambda targs: os._exit(7))
    out = trial.run(_args())
    assert out["time"]["ok"] is False and out["time"]["reason"] == "crashed"
    assert "status 7" in out["time"]["error"]


def test_a_timer_that_raises_gives_a_failure_reply(monkeypatch):
    def boom(targs):
        raise protocol.HarnessError(protocol.TASK_ERROR, "timing launch raised ValueError: x")
    _fake_timing(monkeypatch, boom)
    out = trial.run(_args())
    assert out["time"]["ok"] is False and "ValueError" in out["time"]["error"]


def test_a_timer_that_leaves_a_process_behind_fails(monkeypatch):
    def orphan(targs):
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
