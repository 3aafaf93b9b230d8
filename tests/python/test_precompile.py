"""precompile: the compiles a check or a timing would do on its first
launches, done before the GPU lock is taken, land in Triton's cache under
the keys the JIT looks up; a candidate that misbehaves there costs at most
the limit and changes nothing."""
import json
import os
import subprocess
import sys

import pytest

from conftest import PYDIR, ROOT
from tritondx_harness import precompile

COL_MAX = os.path.join(ROOT, "bench", "tasks", "col_max_fp16.py")
# a misaligned check shape, an aligned one and the bench shape (made on meta)
SHAPES = [(77, 99, "misaligned"), (128, 256), (16384, 16384)]

# The JIT's own path on a machine without a GPU: a driver that names the
# H200's target, and JITFunction.run asked to compile only (warmup). The
# listener says, for each compile the JIT asks for, whether the cache had it.
JIT = """
import json, sys
sys.path.insert(0, {pydir!r})
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.runtime import driver
from triton.runtime.jit import JITFunction
from tritondx_harness.taskload import load_task

class Driver:
    def get_current_device(self): return 0
    def get_current_stream(self, device=None): return 0
    def get_current_target(self): return GPUTarget("cuda", 90, 32)

driver.set_active(Driver())
hits = []
knobs.compilation.listener = lambda *, src, metadata, metadata_group, times, cache_hit: hits.append(cache_hit)
run = JITFunction.run
JITFunction.run = lambda self, *a, grid, warmup, **k: run(self, *a, grid=grid, warmup=True, **k)
task = load_task({task!r})
for shape, device in {shapes!r}:
    task.launch(*task.inputs(tuple(shape), device, 0))
print(json.dumps(hits))
"""


WARM = """
import json, sys
sys.path.insert(0, {pydir!r})
from tritondx_harness import precompile
print(json.dumps(precompile.warm({task!r}, {files!r}, {shapes!r}, limit_s={limit!r})))
"""


def warm(task, files, shapes=None, limit_s=precompile.LIMIT_S):
    """precompile.warm() in a fresh process: one where Triton's interpreter
    ran (other tests here) has triton.language patched for the CPU, and a
    child forked from it could not compile."""
    code = WARM.format(pydir=PYDIR, task=task, files=list(files), shapes=shapes, limit=limit_s)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "triton-cache"
    d.mkdir()
    monkeypatch.setenv("TRITON_CACHE_DIR", str(d))
    monkeypatch.setenv("TRITONDX_GPU_LOCK", str(tmp_path / "gpu.lock"))
    monkeypatch.delenv(precompile.ENV, raising=False)
    return d


def _jit_hits(task):
    devices = [(list(s), "meta" if s[0] > 1000 else "cpu") for s in SHAPES]
    code = JIT.format(pydir=PYDIR, task=task, shapes=devices)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _write(tmp_path, name, launch_body):
    """A candidate: col_max_fp16's file with launch replaced."""
    with open(COL_MAX, encoding="utf-8") as f:
        text = f.read()
    head, rest = text.split("def launch(x):\n", 1)
    tail = rest[rest.index("\ndef reference"):]
    path = tmp_path / name
    path.write_text(head + "def launch(x):\n" + launch_body + "\n" + tail)
    return str(path)


def test_the_compiles_land_where_the_jit_looks(cache):
    got = warm(COL_MAX, [COL_MAX], SHAPES)
    # (128, 256) and (16384, 16384) specialize alike; the misaligned one differs
    assert got["error"] is None and got["kernels"] == 2 and got["failed"] == 0
    assert _jit_hits(COL_MAX) == [True, True]


def test_without_it_the_jit_compiles(cache):
    assert _jit_hits(COL_MAX) == [False, False]


def test_the_bench_shape_by_default(cache):
    got = warm(COL_MAX, [COL_MAX])
    assert got["error"] is None and got["kernels"] == 1


def test_a_candidate_that_hangs_is_cut_at_the_limit(cache, tmp_path):
    cand = _write(tmp_path, "hang.py", "    while True:\n        pass")
    got = warm(COL_MAX, [cand], SHAPES[:1], limit_s=3)
    assert got["error"] == "killed after 3 s" and got["kernels"] == 0
    assert got["seconds"] < 30


def test_a_candidate_that_closes_the_reply_pipe_and_hangs_is_still_cut(cache, tmp_path):
    body = ("    import os\n"
            "    os.closerange(3, 1024)\n"
            "    while True:\n"
            "        pass")
    cand = _write(tmp_path, "closer.py", body)
    got = warm(COL_MAX, [cand], SHAPES[:1], limit_s=3)
    assert got["error"] == "killed after 3 s" and got["kernels"] == 0
    assert got["seconds"] < 30


def test_a_child_that_fails_says_why(cache, tmp_path):
    got = warm(str(tmp_path / "missing.py"), [COL_MAX], SHAPES[:1])
    assert got["error"].startswith("the compiling child failed: ") and "missing.py" in got["error"], got


def test_a_candidate_that_does_not_import_compiles_nothing(cache, tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def launch(x:\n")
    got = warm(COL_MAX, [str(bad)], SHAPES[:1])
    assert got["error"] is None and got["kernels"] == 0
    assert os.listdir(cache) == []


def test_a_launch_that_reads_values_keeps_what_it_launched_before(cache, tmp_path):
    # the kernel call is recorded, then .item() on a meta tensor raises
    body = ("    n_rows, n_cols = x.shape\n"
            "    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)\n"
            "    col_max_kernel[(triton.cdiv(n_cols, 32),)](x, y, n_rows, n_cols, BLOCK_M=32, BLOCK_N=32)\n"
            "    y.sum().item()\n"
            "    return y")
    cand = _write(tmp_path, "item.py", body)
    got = warm(COL_MAX, [cand], [(16384, 16384)])
    assert got["error"] is None and got["kernels"] == 1


def test_processes_it_leaves_behind_are_killed(cache, tmp_path):
    marker = tmp_path / "alive"
    body = ("    import os, time\n"
            "    if os.fork() == 0:\n"
            "        os.setsid()\n"
            "        time.sleep(3)\n"
            f"        open({str(marker)!r}, 'w').write('x')\n"
            "        os._exit(0)\n"
            "    return x")
    cand = _write(tmp_path, "stray.py", body)
    got = warm(COL_MAX, [cand], SHAPES[:1])
    assert got["error"] is None
    import time
    time.sleep(4)
    assert not marker.exists()


def test_only_under_the_lock_and_not_when_turned_off(monkeypatch):
    monkeypatch.delenv("TRITONDX_GPU_LOCK", raising=False)
    monkeypatch.delenv(precompile.ENV, raising=False)
    assert not precompile.enabled()
    monkeypatch.setenv("TRITONDX_GPU_LOCK", "/tmp/x.lock")
    assert precompile.enabled()
    monkeypatch.setenv(precompile.ENV, "0")
    assert not precompile.enabled()
