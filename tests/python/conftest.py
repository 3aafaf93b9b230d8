"""Shared helpers for the harness tests: the task folder and a runner that
starts the harness the way the C side does (a child process, JSON on stdout)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TASKS = os.path.join(ROOT, "tests", "data", "tasks")
PYDIR = os.path.join(ROOT, "python")

if PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)


def task(name):
    """Path of a test task under tests/data/tasks."""
    return os.path.join(TASKS, name)


CLI = os.environ.get("TDX_CLI", os.path.join(ROOT, "build", "tritondx"))


def rewrite_family(family, task_path, out_dir):
    """`tritondx rewrite --family`: [(candidate path, summary)] it printed."""
    r = subprocess.run([CLI, "rewrite", "--family", family, "--out-dir", str(out_dir), str(task_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [line.split("\t") for line in r.stdout.splitlines() if "\t" in line]


class Reply:
    """A finished harness run: exit status, raw stdout/stderr, parsed JSON."""

    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = json.loads(proc.stdout)


def harness(*args, timeout=300):
    """Run `python3 -m tritondx_harness ARGS` with no GPU visible."""
    env = dict(os.environ)
    env["PYTHONPATH"] = PYDIR + os.pathsep + env.get("PYTHONPATH", "")
    env["CUDA_VISIBLE_DEVICES"] = ""
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([sys.executable, "-m", "tritondx_harness", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=ROOT)
    return Reply(proc)


@pytest.fixture
def run_harness():
    return harness


@pytest.fixture
def lock(tmp_path, monkeypatch):
    """The GPU lock on (a file under tmp_path) for the test; its descriptors
    closed after."""
    from tritondx_harness import gpulock
    path = str(tmp_path / "gpu.lock")
    monkeypatch.setenv(gpulock.ENV, path)
    yield path
    gpulock.forget()

# The fault-injection suite is a ctest test of its own (tests/cmake/faults.cmake,
# TDX_FAULTS=1), not part of the harness tests' run.
collect_ignore = [] if os.environ.get("TDX_FAULTS") == "1" else ["test_faults.py"]
