"""A check that runs out of GPU memory while other processes share the GPU
runs once more with the GPU to itself; every process gives its cached
memory back when it lets go of the GPU lock. Through Triton's interpreter:
the out-of-memory errors are raised by the task's own code, as torch raises
them."""
from pathlib import Path

import torch

from conftest import task
from tritondx_harness import gpulock
from tritondx_harness.check import check_task, out_of_memory

OOM = 'torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 1024.00 MiB.")'


def _reference_oom(tmp_path, times):
    """add.py whose reference raises an out-of-memory error on its first
    `times` calls in this process."""
    text = Path(task("add.py")).read_text()
    old = "def reference(x, y):\n    return x.double() + y.double()\n"
    assert text.count(old) == 1
    new = ("_calls = [0]\n\n\ndef reference(x, y):\n    _calls[0] += 1\n"
           f"    if _calls[0] <= {times}:\n        raise {OOM}\n    return x.double() + y.double()\n")
    path = tmp_path / f"add_oom_{times}.py"
    path.write_text(text.replace(old, new))
    return str(path)


def test_the_text_of_an_allocator_out_of_memory_is_told_from_out_of_resources():
    assert out_of_memory("reference raised OutOfMemoryError: CUDA out of memory. Tried to allocate 1 GiB")
    assert out_of_memory("launch raised RuntimeError: CUDA driver error: CUDA_ERROR_OUT_OF_MEMORY")
    assert not out_of_memory("OutOfResources: out of resource: shared memory, Required: 262144")
    assert not out_of_memory(None)


def test_with_the_lock_on_a_check_that_ran_out_of_memory_runs_again_alone(lock, tmp_path):
    res = check_task(_reference_oom(tmp_path, 1), device="cpu", seeds=(0,))
    assert res["ok"] is True, res["error"]
    assert res["phases_s"]["alone"] >= 0
    assert gpulock.mode() is None


def test_out_of_memory_again_alone_says_so(lock, tmp_path):
    res = check_task(_reference_oom(tmp_path, 99), device="cpu", seeds=(0,))
    assert res["ok"] is False
    assert "OutOfMemoryError" in res["error"] and res["error"].endswith("(again with the GPU to itself)"), res
    assert gpulock.mode() is None


def test_with_the_lock_off_nothing_shares_the_gpu_and_the_first_verdict_stands(tmp_path, monkeypatch):
    monkeypatch.delenv(gpulock.ENV, raising=False)
    res = check_task(_reference_oom(tmp_path, 1), device="cpu", seeds=(0,))
    assert res["ok"] is False
    assert "OutOfMemoryError" in res["error"] and "again" not in res["error"], res


def test_a_candidate_that_ran_out_of_memory_runs_again_alone(lock, tmp_path):
    """The candidate runs in a forked child; its first child raises (a file
    marks the first run), the second, with the GPU to itself, passes."""
    marker = tmp_path / "ran_once"
    text = Path(task("add.py")).read_text()
    old = "    z = torch.empty_like(x)\n"
    assert text.count(old) == 1
    cand = tmp_path / "cand.py"
    cand.write_text(text.replace(old, (
        "    import os\n"
        f"    if not os.path.exists({str(marker)!r}):\n"
        f"        open({str(marker)!r}, 'w').close()\n"
        f"        raise {OOM}\n" + old)))
    res = check_task(task("add.py"), device="cpu", seeds=(0,), candidate=str(cand))
    assert res["ok"] is True, res["error"]
    assert res["phases_s"]["alone"] >= 0 and marker.exists()


def test_a_process_empties_its_allocator_cache_before_it_lets_go_of_the_lock(lock, monkeypatch):
    seen = []
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: seen.append(gpulock.mode()))
    with gpulock.shared():
        assert seen == []
    assert seen == ["shared"]  # emptied while the lock was still held
    with gpulock.exclusive():
        pass
    assert seen == ["shared", "exclusive"]
    monkeypatch.setenv(gpulock.KEEP_CACHE_ENV, "1")  # kept on letting go, still emptied when asked
    with gpulock.shared():
        pass
    assert seen == ["shared", "exclusive"]
    assert gpulock.release_memory() is True and seen[-1] is None
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: False)
    assert gpulock.release_memory() is False
