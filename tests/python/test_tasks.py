"""The benchmark task suite (bench/tasks/): every task is well formed, its bench
shape is big enough to measure on an H200, its check shapes are awkward enough
to catch alignment and masking mistakes, and its initial kernel passes its own
check through Triton's CPU interpreter, so no task is wrong before optimization
starts."""
import os
import sys

if __name__ == "__main__":
    # Worker mode (see the `checks` fixture). Triton decorates its own library
    # functions (tl.sum's combine, tl.rand, ...) for the interpreter only when
    # TRITON_INTERPRET is set before its first import, and for the compiler
    # only when it is not: one mode per process.
    if sys.argv[1] == "check":
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)

import ast
import importlib.util
import json
import math
import pathlib
import subprocess

import pytest
import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
TASK_DIR = ROOT / "bench" / "tasks"
TASKS = sorted(TASK_DIR.glob("*.py"))
IDS = [p.stem for p in TASKS]

# Traffic floor for a bench shape: several times the H200's 60 MB L2, so the
# timing is of HBM and not of cache.
MIN_BENCH_BYTES = 240e6
# The interpreter runs each program in Python: check inputs stay small.
MAX_CHECK_ELEMENTS = 66_000
REQUIRED = ("launch", "reference", "make_inputs", "SHAPES", "bytes")


def _load(path):
    """Import a task file as its own module; its kernels are never run in this
    process (the checks run in worker processes), only make_inputs, bytes, flops."""
    spec = importlib.util.spec_from_file_location(f"bench_task_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _dims(shape):
    """The integer sizes of a shape (a trailing "misaligned" flag left out)."""
    return [d for d in shape if isinstance(d, int)]


def _tensors(values):
    """The tensors among a task's inputs (some tasks also pass ints)."""
    return [v for v in values if isinstance(v, torch.Tensor)]


def _check_worker(task_paths):
    """Each task's check through the interpreter."""
    from tritondx_harness.check import check_task
    from tritondx_harness.interp_fixes import bf16_dot_is_wrong
    replies = {"checks": {}}
    for p in task_paths:
        replies["checks"][pathlib.Path(p).stem] = check_task(p, device="cpu")
    # the harness corrects the interpreter's bf16 dot while it checks
    replies["bf16_dot_wrong_after"] = bf16_dot_is_wrong()
    return replies


def _compile_worker(task_paths, out_dir):
    """Each task's kernels captured and compiled ahead of time for sm_90, as
    launched on its last check shape (the misaligned one)."""
    import argparse
    from tritondx_harness import capture
    parser = argparse.ArgumentParser()
    capture.add_args(parser)
    # only the compile is under test: skip the resource and SASS listings
    skip = [opt for opt in ("--no-ptxas", "--no-sass") if opt in parser.format_help()]
    replies = {"compiles": {}}
    for p in task_paths:
        stem = pathlib.Path(p).stem
        shape = _load(pathlib.Path(p)).SHAPES["check"][-1]
        args = parser.parse_args(["--task", p, "--mode", "aot", "--out", os.path.join(out_dir, stem),
                                  "--shape", json.dumps(list(shape)), *skip])
        replies["compiles"][stem] = capture.run(args)
    return replies


def _worker(mode, out_path, task_paths):
    """Run one worker and write its replies to out_path as JSON."""
    if mode == "check":
        replies = _check_worker(task_paths)
    else:
        replies = _compile_worker(task_paths, os.path.dirname(out_path))
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(replies, f, default=str)


@pytest.fixture(scope="session")
def checks(tmp_path_factory):
    """Every task's check reply, from worker processes of this file.

    Workers keep the interpreter choice out of the pytest process (Triton
    fixes it at its first import, and other tests compile for the GPU) and
    split the suite over the CPU cores."""
    nworkers = max(1, min(2, os.cpu_count() or 1))
    out_dir = tmp_path_factory.mktemp("task_checks")
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "python"), env.get("PYTHONPATH")]))
    env["TRITON_CACHE_DIR"] = str(out_dir / "triton-cache")
    jobs = [("check", [str(p) for p in TASKS[i::nworkers]]) for i in range(nworkers)]
    jobs.append(("compile", [str(p) for p in TASKS]))
    procs = []
    for i, (mode, share) in enumerate(jobs):
        out = out_dir / f"{mode}{i}" / "replies.json"
        out.parent.mkdir()
        # output to a file, not a pipe: a full pipe would stall a worker while we wait on another
        with open(out.parent / "log.txt", "w", encoding="utf-8") as log:
            procs.append((out, subprocess.Popen([sys.executable, __file__, mode, str(out), *share], env=env,
                                                stdout=log, stderr=subprocess.STDOUT)))
    merged = {"checks": {}, "compiles": {}, "bf16_dot_wrong_after": False}
    for out, proc in procs:
        try:
            proc.wait(timeout=1500)
        except subprocess.TimeoutExpired:
            for _, p in procs:
                p.kill()
            raise
        log = (out.parent / "log.txt").read_text(encoding="utf-8", errors="replace")
        assert proc.returncode == 0, f"worker failed:\n{log[-4000:]}"
        with open(out, encoding="utf-8") as f:
            part = json.load(f)
        merged["checks"].update(part.get("checks", {}))
        merged["compiles"].update(part.get("compiles", {}))
        merged["bf16_dot_wrong_after"] |= part.get("bf16_dot_wrong_after", False)
    return merged


def test_suite_has_enough_tasks():
    assert len(TASKS) >= 40, [p.name for p in TASKS]


def test_bf16_dot_runs_right_in_the_interpreter(checks):
    assert not checks["bf16_dot_wrong_after"]


def test_readme_lists_every_task():
    readme = (TASK_DIR / "README.md").read_text(encoding="utf-8")
    missing = [p.stem for p in TASKS if f"`{p.stem}`" not in readme]
    assert not missing, f"bench/tasks/README.md does not list {missing}"


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_task_is_well_formed(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree, clean=False)
    assert doc and "\n" not in doc.strip(), "the file needs a one-line docstring"
    kernels = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)
               and any("jit" in ast.unparse(d) for d in n.decorator_list)]
    assert kernels, "no @triton.jit kernel"
    mod = _load(path)
    for name in REQUIRED:
        assert hasattr(mod, name), f"missing `{name}`"
    shapes = mod.SHAPES
    assert set(shapes) == {"bench", "check"}
    assert isinstance(shapes["check"], list) and shapes["check"]
    tol = getattr(mod, "TOLERANCE", None)
    assert tol is None or (isinstance(tol, float) and 0 < tol < 0.05)


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_bench_shape_moves_enough_bytes(path):
    mod = _load(path)
    inputs = mod.make_inputs(mod.SHAPES["bench"], device="meta", seed=0)
    assert all(t.device.type == "meta" for t in _tensors(inputs)), "make_inputs ignores device"
    n = mod.bytes(inputs)
    read = sum(t.numel() * t.element_size() for t in _tensors(inputs))
    assert n >= MIN_BENCH_BYTES, f"bench shape moves {n / 1e6:.0f} MB"
    assert n >= read / 4, f"bytes() = {n} is far below the inputs' own {read} bytes"
    assert n <= 4e9, f"bench shape moves {n / 1e9:.1f} GB"
    if hasattr(mod, "flops"):
        assert mod.flops(inputs) > 0


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_check_shapes_are_small_and_awkward(path):
    mod = _load(path)
    checks = mod.SHAPES["check"]
    sizes = [d for shape in checks for d in _dims(shape)]
    assert any(d & (d - 1) for d in sizes), "no non-power-of-two size among the check shapes"
    assert any(d % 2 for d in sizes), "no odd size among the check shapes"
    misaligned = False
    for shape in checks:
        inputs = _tensors(mod.make_inputs(shape, device="cpu", seed=0))
        biggest = max(t.numel() for t in inputs)
        assert biggest <= MAX_CHECK_ELEMENTS, f"check shape {shape} has an input of {biggest} elements"
        misaligned |= any(t.data_ptr() % 16 for t in inputs)
    assert misaligned, "no check shape gives an input whose data pointer is not 16-byte aligned"


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_inputs_are_random_and_seeded(path):
    mod = _load(path)
    shape = mod.SHAPES["check"][-1]
    a = mod.make_inputs(shape, device="cpu", seed=0)
    b = mod.make_inputs(shape, device="cpu", seed=0)
    c = mod.make_inputs(shape, device="cpu", seed=1)
    assert len(a) == len(b) == len(c)
    for x, y in zip(a, b):
        assert type(x) is type(y)
        if isinstance(x, torch.Tensor):
            assert torch.equal(x, y), "the same seed gave other inputs"
        else:
            assert x == y
    floats = [t for t in _tensors(a) if t.is_floating_point()]
    assert floats and all(bool(t.ne(0).any()) for t in floats), "an input is all zeros"
    assert any(not torch.equal(x, z) for x, z in zip(_tensors(a), _tensors(c))), \
        "another seed gave the same inputs"


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_initial_kernel_passes_its_check(path, checks):
    res = checks["checks"][path.stem]
    assert res["ok"], res["error"]
    assert len(res["cases"]) == 3 * len(_load(path).SHAPES["check"])
    assert all(c["ok"] and c["rel_err"] is not None and math.isfinite(c["rel_err"]) for c in res["cases"])



def _outputs(value):
    """A callable's outputs as a tuple (one tensor or several)."""
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _copies(values):
    """Fresh copies of the tensor inputs (a call must not see another's writes)."""
    return tuple(v.clone() if isinstance(v, torch.Tensor) else v for v in values)


class _NoLaunch:
    """Stands in for a Triton kernel: `kernel[grid](...)` does nothing, so
    launch allocates and returns its outputs without running a kernel."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def _launch_without_kernels(path):
    """The task's launch with every kernel replaced by _NoLaunch: its outputs'
    dtypes and shapes at no cost (their values are whatever was allocated)."""
    from tritondx_harness.taskload import jit_function
    mod = _load(path)
    for name, obj in list(vars(mod).items()):
        if jit_function(obj) is not None:
            setattr(mod, name, _NoLaunch())
    return mod.launch


def _agrees_in_distribution(got, ref, tol):
    """For a torch_impl that draws its own random numbers (TORCH_IMPL_RANDOM):
    where both keep an element they agree, and they zero about as many."""
    from tritondx_harness.check import compare
    both = (got != 0) & (ref != 0)
    if int(both.sum()):
        v = compare(got[both], ref[both].to(torch.float64), tol)
        assert v["ok"], f"kept elements differ: {v['message']}"
    n = got.numel()
    if n >= 1000:
        zero_got = float((got == 0).float().mean())
        zero_ref = float((ref == 0).float().mean())
        assert abs(zero_got - zero_ref) < 0.05, f"zeroes {zero_got:.3f} of the output, the reference {zero_ref:.3f}"


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_torch_impl_agrees_with_reference(path):
    """torch_impl (the fair torch baseline) computes what reference does within
    the task's tolerance, in launch's dtype and shape: pure torch on the CPU at
    every check shape, no kernel runs."""
    from tritondx_harness.check import compare, tolerance_for, uses_tf32
    mod = _load(path)
    assert callable(getattr(mod, "torch_impl", None)), "missing `torch_impl`"
    launch = _launch_without_kernels(path)
    tf32 = uses_tf32(path.read_text(encoding="utf-8"))
    random = bool(getattr(mod, "TORCH_IMPL_RANDOM", False))
    for shape in mod.SHAPES["check"]:
        for seed in (0, 1):
            inputs = mod.make_inputs(shape, device="cpu", seed=seed)
            with torch.no_grad():
                refs = _outputs(mod.reference(*_copies(inputs)))
                got = _outputs(mod.torch_impl(*_copies(inputs)))
                want = _outputs(launch(*_copies(inputs)))
            where = f"shape {shape} seed {seed}"
            assert len(got) == len(refs) == len(want), f"{where}: {len(got)} outputs"
            for g, r, w in zip(got, refs, want):
                assert g.dtype == w.dtype, f"{where}: torch_impl returns {g.dtype}, launch {w.dtype}"
                assert tuple(g.shape) == tuple(w.shape), f"{where}: shape {tuple(g.shape)}, launch's {tuple(w.shape)}"
                tol, _ = tolerance_for(g.dtype, tf32, getattr(mod, "TOLERANCE", None))
                if random:
                    _agrees_in_distribution(g, r, tol)
                    continue
                v = compare(g, r, tol)
                assert v["ok"], f"{where}: {v['message']}"


def test_torch_impl_check_can_fail():
    """The comparison above rejects a torch_impl in another dtype or off by a little."""
    from tritondx_harness.check import compare, tolerance_for
    x = torch.randn(1000, dtype=torch.float16)
    ref = torch.softmax(x.double(), dim=-1)
    tol, _ = tolerance_for(torch.float16)
    assert compare(torch.softmax(x, dim=-1), ref, tol)["ok"]
    assert not compare(torch.softmax(x, dim=-1) * 1.05, ref, tol)["ok"]
    assert not compare(torch.softmax(x.float(), dim=-1) * 1.0001, ref, tolerance_for(torch.float32)[0])["ok"]
    y = torch.randn(4000)
    with pytest.raises(AssertionError):  # drops half where the reference drops a tenth
        _agrees_in_distribution(torch.where(torch.rand(4000) > 0.5, y, 0.0),
                                torch.where(torch.rand(4000) > 0.1, y.double(), 0.0), 1e-5)
    with pytest.raises(AssertionError):  # kept values scaled wrong
        _agrees_in_distribution(torch.where(y > 0, y * 1.1, 0.0), torch.where(y > 0, y.double(), 0.0), 1e-5)
    _agrees_in_distribution(torch.where(y > 0, y, 0.0), torch.where(y > 0, y.double(), 0.0), 1e-5)


@pytest.mark.parametrize("path", TASKS, ids=IDS)
def test_initial_kernels_compile_for_sm90(path, checks):
    res = checks["compiles"][path.stem]
    assert res["ok"], res["error"]
    assert res["kernels"], "launch launched no kernel"


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2], sys.argv[3:])
