"""The progress line of `tritondx optimize` and `tritondx bench`: drawn on stderr when stderr is a
terminal (run under a pseudo-terminal with script(1)), absent when stderr is
a file, and never on stdout."""
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))


def env():
    return dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
                TDX_TEST_TIMER_DELAY="0.7", PYTHONPATH=str(ROOT / "python"))


def task(tmp_path):
    t = tmp_path / "scale.py"
    shutil.copy(ROOT / "tests" / "data" / "rewrite" / "scale.py", t)
    return t


def test_progress_on_a_terminal(tmp_path):
    t = task(tmp_path)
    cmd = f"{CLI} optimize --device cpu --rounds 1 --candidates 2 {t} > {tmp_path / 'stdout.txt'}"
    r = subprocess.run(["script", "-qefc", cmd, "/dev/null"], capture_output=True, env=env(), timeout=600)
    assert r.returncode == 0, r.stdout.decode(errors="replace")
    screen = r.stdout.decode(errors="replace")  # what the terminal showed: stderr only
    assert "\r\x1b[K" in screen and "round 1/1" in screen
    assert "\x1b[K" not in (tmp_path / "stdout.txt").read_text()


def test_no_progress_when_stderr_is_a_file(tmp_path):
    t = task(tmp_path)
    with open(tmp_path / "stderr.txt", "w") as err:
        r = subprocess.run([CLI, "optimize", "--device", "cpu", "--rounds", "1", "--candidates", "2", str(t)],
                           stdout=subprocess.PIPE, stderr=err, env=env(), timeout=600)
    assert r.returncode == 0
    text = (tmp_path / "stderr.txt").read_text()
    assert "\r" not in text and "\x1b[" not in text
    assert "round 1/1" not in text


def test_no_progress_flag_on_a_terminal(tmp_path):
    t = task(tmp_path)
    cmd = f"{CLI} optimize --device cpu --rounds 1 --candidates 1 --no-progress {t} > /dev/null"
    r = subprocess.run(["script", "-qefc", cmd, "/dev/null"], capture_output=True, env=env(), timeout=600)
    assert r.returncode == 0
    assert "\x1b[K" not in r.stdout.decode(errors="replace")


def bench_suite(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "rewrite" / "scale.py", suite / "scale.py")
    return suite


def test_bench_progress_on_a_terminal(tmp_path):
    suite = bench_suite(tmp_path)
    cmd = (f"{CLI} bench --device cpu --no-torch --rounds 1 --candidates 1 --suite {suite} "
           f"--out {tmp_path / 'out'} > {tmp_path / 'stdout.txt'}")
    r = subprocess.run(["script", "-qefc", cmd, "/dev/null"], capture_output=True, env=env(), timeout=600)
    assert r.returncode == 0, r.stdout.decode(errors="replace")
    screen = r.stdout.decode(errors="replace")
    assert "\r\x1b[K" in screen and "[1/1] scale.py  round 1/1" in screen
    assert "\x1b[K" not in (tmp_path / "stdout.txt").read_text()


def test_bench_quiet_on_a_terminal(tmp_path):
    suite = bench_suite(tmp_path)
    cmd = (f"{CLI} bench --device cpu --no-torch --quiet --rounds 1 --candidates 1 --suite {suite} "
           f"--out {tmp_path / 'out'} > /dev/null")
    r = subprocess.run(["script", "-qefc", cmd, "/dev/null"], capture_output=True, env=env(), timeout=600)
    assert r.returncode == 0
    screen = r.stdout.decode(errors="replace")
    assert "\x1b[K" not in screen and "bench: [1/1]" not in screen
