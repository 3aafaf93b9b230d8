"""The time verb's torch baseline on the CPU (`--torch-only --device cpu`: pure
torch, no kernel runs): torch_impl when the task has one, else reference and
the reply says so; torch.compile timed apart from its compile time (through
Dynamo's "eager" backend, the test seam: Inductor on a 2-core CPU takes a
minute); TORCH_TF32 applied while the baseline runs; usage errors."""
import textwrap

import pytest
import torch

from tritondx_harness.__main__ import dispatch
from tritondx_harness.timing import torch_precision

TASK = '''\
"""A test task: y = 2x on fp16 rows."""
import torch
import triton
import triton.language as tl

CALLS = []


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def launch(x):
    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y


def reference(x):
    return x.double() * 2


def make_inputs(shape, dtype=torch.float16, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (1 << 26,), "check": [(5,), (3000,), (77,)]}
'''

IMPL = '''

def torch_impl(x):
    return x * 2
'''


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def _time(*args):
    return dispatch(["time", *args, "--torch-only", "--device", "cpu", "--budget-ms", "20"])


def test_torch_impl_is_timed_when_present(tmp_path):
    r = _time("--task", _write(tmp_path, "with_impl.py", TASK + IMPL))
    assert r["ok"], r
    assert r["torch_baseline"] == "torch_impl"
    assert r["torch_dtype"] == ["float16"]  # the task's dtype, not reference's float64
    assert r["shape"] == [3000]  # the largest check shape on the CPU
    assert r["variants"] == {}  # launch never ran
    assert r["torch_eager"]["median_ms"] > 0 and r["torch_eager"]["n"] >= 3
    assert "torch_compile" not in r


def test_reference_is_the_fallback_and_said_so(tmp_path):
    r = _time("--task", _write(tmp_path, "no_impl.py", TASK))
    assert r["ok"], r
    assert r["torch_baseline"] == "reference"
    assert r["torch_dtype"] == ["float64"]
    assert r["torch_eager"]["median_ms"] > 0


def test_torch_compile_is_timed_apart_from_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("TDX_TORCH_COMPILE_BACKEND", "eager")
    r = _time("--task", _write(tmp_path, "compiled.py", TASK + IMPL), "--torch-compile", "--shape", "[4096]")
    assert r["ok"], r
    assert r["shape"] == [4096]
    tc = r["torch_compile"]
    assert "error" not in tc, tc
    assert tc["backend"] == "eager" and tc["compile_s"] > 0 and tc["median_ms"] > 0
    # compiling happened once, before the timed runs: no timed run holds it
    assert tc["max_ms"] < tc["compile_s"] * 1e3


def test_a_failing_compile_is_a_column_error_not_a_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("TDX_TORCH_COMPILE_BACKEND", "no_such_backend")
    r = _time("--task", _write(tmp_path, "bad_backend.py", TASK + IMPL), "--torch-compile")
    assert r["ok"], r
    assert r["torch_eager"]["median_ms"] > 0
    assert "error" in r["torch_compile"] and "median_ms" not in r["torch_compile"]


def test_torch_tf32_is_applied_while_the_baseline_runs(tmp_path):
    seen = tmp_path / "seen.txt"
    impl = f'''

TORCH_TF32 = True


def torch_impl(x):
    with open({str(seen)!r}, "a") as f:
        f.write(f"{{torch.backends.cuda.matmul.allow_tf32}} {{torch.backends.cudnn.allow_tf32}}\\n")
    return x * 2
'''
    before = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    r = _time("--task", _write(tmp_path, "tf32.py", TASK + impl))
    assert r["ok"], r
    assert r["torch_tf32"] is True
    lines = set(seen.read_text().split("\n")) - {""}
    assert lines == {"True True"}
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before
    with torch_precision(False):
        assert not torch.backends.cuda.matmul.allow_tf32 and not torch.backends.cudnn.allow_tf32
    assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == before


@pytest.mark.parametrize("args, kind", [
    (["--device", "cpu"], "usage"),                      # timing launch needs CUDA
    (["--torch-only", "--candidate", "x.py"], "usage"),  # the torch baseline has no candidate
])
def test_usage_errors(tmp_path, args, kind):
    r = dispatch(["time", "--task", _write(tmp_path, "t.py", TASK + IMPL), *args])
    assert not r["ok"] and r["error_kind"] == kind, r


def test_a_task_without_either_is_invalid(tmp_path):
    text = TASK.replace("def reference(x):\n    return x.double() * 2\n", "")
    r = _time("--task", _write(tmp_path, "neither.py", text))
    assert not r["ok"] and r["error_kind"] == "task_invalid", r


def test_a_kernelbench_problem_times_its_model_as_written():
    """KernelBench: the torch baseline is Model in the inputs' own precision
    (its reference runs Model in float64)."""
    from conftest import task
    r = _time("--task", task("kb_scale.py"))
    assert r["ok"], r
    assert r["torch_baseline"] == "torch_impl" and r["torch_dtype"] == ["float32"]
    assert r["torch_eager"]["median_ms"] > 0


def _cpu_gpu(monkeypatch, seen):
    """The time verb's GPU steps replaced by CPU stand-ins: inputs made on the
    CPU, launch run as torch, each timed callable called once a rep and its
    rep's time its position in the rotation (so the reply's order is known)."""
    from tritondx_harness import timing
    monkeypatch.setattr(timing, "require_cuda", lambda: torch)
    monkeypatch.setattr(timing, "pin_timers", lambda: None)
    monkeypatch.setattr(timing, "device_info", lambda: {"name": "cpu stand-in"})
    monkeypatch.setattr(timing, "rotated", lambda _t, inputs, _i, _f: ([inputs], 1))
    monkeypatch.setattr(timing, "estimate_ms", lambda f, a: (f(*a), 1.0)[1])
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)

    def interleaved(fns, reps, warmup, arg_sets, batch=1):
        seen.append((sorted(fns), torch.backends.cuda.matmul.allow_tf32))
        return {name: [float(i + 1)] * 5 for i, (name, f) in enumerate(sorted(fns.items())) if f(*arg_sets[0]) is not None}
    monkeypatch.setattr(timing, "time_interleaved", interleaved)


CPU_LAUNCH = TASK.replace('''    y = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 64),)](x, y, x.numel(), BLOCK=64)
    return y''', "    return x * 2").replace(".to(dtype).to(device),)", ".to(dtype),)")


def test_beside_torch_times_torch_among_the_variants(tmp_path, monkeypatch):
    """--beside-torch: torch eager and torch.compile of the torch baseline
    timed in the same interleaved run as launch, at the task's TORCH_TF32,
    compiled before it (compile_s apart); the later torch columns skipped
    with --no-reference."""
    monkeypatch.setenv("TDX_TORCH_COMPILE_BACKEND", "eager")
    seen = []
    _cpu_gpu(monkeypatch, seen)
    task = _write(tmp_path, "beside.py", CPU_LAUNCH + IMPL + "\nTORCH_TF32 = True\n")
    before = torch.backends.cuda.matmul.allow_tf32
    r = dispatch(["time", "--task", task, "--candidate", task, "--beside-torch", "--no-reference", "--shape", "[64]"])
    assert r["ok"], r
    assert sorted(r["variants"]) == ["baseline", "candidate", "torch_compile", "torch_eager"]
    assert seen == [(["baseline", "candidate", "torch_compile", "torch_eager"], True)]
    assert torch.backends.cuda.matmul.allow_tf32 == before
    b = r["beside_torch"]
    assert b["torch_baseline"] == "torch_impl" and b["backend"] == "eager" and b["compile_s"] > 0
    assert "error" not in b and "fns" not in b
    assert "torch_eager" not in r and "torch_compile" not in r  # --no-reference: no second timing


def test_beside_torch_without_a_compile_keeps_eager_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("TDX_TORCH_COMPILE_BACKEND", "no_such_backend")
    seen = []
    _cpu_gpu(monkeypatch, seen)
    task = _write(tmp_path, "beside_bad.py", CPU_LAUNCH + IMPL)
    r = dispatch(["time", "--task", task, "--beside-torch", "--no-reference", "--shape", "[64]"])
    assert r["ok"], r
    assert sorted(r["variants"]) == ["baseline", "torch_eager"]
    assert "torch.compile" in r["beside_torch"]["error"]
    r = dispatch(["time", "--task", task, "--no-reference", "--shape", "[64]"])
    assert r["ok"] and sorted(r["variants"]) == ["baseline"] and "beside_torch" not in r
    # no torch_impl: its reference is no comparison, and nothing is timed beside
    plain = _write(tmp_path, "beside_ref.py", CPU_LAUNCH)
    r = dispatch(["time", "--task", plain, "--beside-torch", "--no-reference", "--shape", "[64]"])
    assert r["ok"] and sorted(r["variants"]) == ["baseline"], r
    assert r["beside_torch"]["torch_baseline"] == "reference" and "torch_impl" in r["beside_torch"]["error"]
