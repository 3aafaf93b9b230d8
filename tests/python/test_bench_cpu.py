"""`tritondx bench` on a two-task suite on the CPU (checks through the
interpreter, timing from the TDX_TEST_TIMER seam, the torch baselines timed by
the harness on the CPU): rows, the torch columns, the summary table, and
merging results files.

torch.compile runs through Dynamo's "eager" backend (TDX_TORCH_COMPILE_BACKEND,
Inductor takes a minute per task on this CPU): the whole path runs, and the
compile column is n/a (a stand-in's time is never counted as torch.compile's)."""
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))


def test_bench_runs_a_suite_and_merges(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("scale.py", "rowsum_loop.py"):
        shutil.copy(ROOT / "tests" / "data" / "rewrite" / name, suite / name)
    # rowsum_loop gets a torch_impl; scale has none, so its torch columns time reference
    with open(suite / "rowsum_loop.py", "a") as f:
        f.write("\n\ndef torch_impl(x):\n    return x.sum(dim=1)\n")
    env = dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               PYTHONPATH=str(ROOT / "python"), TDX_TORCH_COMPILE_BACKEND="eager",
               TDX_TEST_TIMER_TORCH="0.5,3.0,7.25")
    out = tmp_path / "out"
    r = subprocess.run([CLI, "bench", "--suite", str(suite), "--out", str(out), "--rounds", "1",
                        "--candidates", "2", "--max-level", "0", "--device", "cpu"],
                       capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "results.json").read_text())
    assert doc["schema"] == "tritondx/bench" and doc["max_level"] == 0
    rows = {row["task"]: row for row in doc["rows"]}
    assert set(rows) == {"scale.py", "rowsum_loop.py"}
    for row in rows.values():
        assert row["status"] == "ok", row
        assert row["initial_s"] > 0 and row["final_s"] > 0
    # the model timer makes a larger BLOCK faster: scale.py must have kept a retune
    assert rows["scale.py"]["kept"] >= 1 and rows["scale.py"]["families"].startswith("retune")
    assert rows["scale.py"]["final_s"] < rows["scale.py"]["initial_s"]
    # the torch baselines, timed once per task on the original task
    impl, ref = rows["rowsum_loop.py"], rows["scale.py"]
    assert impl["torch_baseline"] == "torch_impl" and ref["torch_baseline"] == "reference"
    for row in (impl, ref):
        assert row["eager_ms"] > 0, row
        assert row["compile_ms"] < 0, row  # n/a: a stand-in backend
        assert "torch.compile: backend eager, not inductor" in row["torch_note"], row
    md = (out / "RESULTS.md").read_text()
    assert "(ref) | n/a |" in md  # scale.py: eager on reference, compile n/a
    assert "| torch.compile n/a | 2 / 2 |" in md and "| faster than torch.compile |" not in md
    assert "| faster than torch eager |" in md
    assert "| torch columns on `reference` (no torch_impl) | 1 |" in md
    assert "| geomean speedup |" in md and "| scale.py |" in md
    # torch timed again beside each result at the end of its run (the test timer's torch:
    # eager half the task's time, compiled three times it), at the row's time basis
    for name, row in rows.items():
        journal = [json.loads(line) for line in (out / name[:-3] / "journal.jsonl").read_text().splitlines()]
        end = [e for e in journal if e["type"] in ("confirm", "torch_beside")]
        assert len(end) == 1 and end[0]["type"] == ("confirm" if row["kept"] else "torch_beside"), end
        task_s = end[0]["initial_s"] if row["kept"] else row["final_s"]
        assert abs(row["eager_beside_ms"] - 0.5 * task_s * 1e3) < 1e-9 * 1e3, row
        assert abs(row["compile_beside_ms"] - 3.0 * task_s * 1e3) < 1e-9 * 1e3, row
        assert end[0]["torch_compile_build_s"] == 7.25  # of the entry's time_s, torch.compile's compile
    n = len(rows)
    assert (f"| timed beside torch at the end of each run: faster than torch eager / torch.compile "
            f"| {sum(r['final_s'] < r['eager_beside_ms'] / 1e3 for r in rows.values())} / {n}, {n} / {n} |") in md
    ties = [sum(abs(r["final_s"] * 1e3 - r[k]) <= 0.02 * r[k] for r in rows.values())
            for k in ("eager_beside_ms", "compile_beside_ms")]
    tie_line = f"| timed beside torch: within 2% of torch eager / torch.compile (a tie either way) | {ties[0]} / {ties[1]} |"
    assert tie_line in md
    rep = subprocess.run([CLI, "report", str(out), "--format", "md", "--stdout"], capture_output=True, text=True,
                         timeout=60)
    assert rep.returncode == 0, rep.stderr
    assert tie_line in rep.stdout and "| timed beside torch at the end of each run:" in rep.stdout
    # the test timer's torch.compile compiled in 7.25 s each time
    build_line = "| timed beside torch: torch.compile's compile there, median / most | 7.2 s / 7.2 s |"
    assert build_line in md and build_line in rep.stdout
    # merging the same results twice keeps one row per task (a later run of a task replaces it)
    shutil.copy(out / "results.json", tmp_path / "same.json")
    m = subprocess.run([CLI, "bench", "--merge", str(out / "results.json"), str(tmp_path / "same.json")],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr
    assert m.stdout.count("| scale.py |") == 1 and "| tasks run / total | 2 / 2 |" in m.stdout
    # merging two slices of a suite gives one table with every row
    doc = json.loads((out / "results.json").read_text())
    for r in doc["rows"]:
        r["task"] = r["task"].replace(".py", "_b.py")
    (tmp_path / "again.json").write_text(json.dumps(doc))
    m = subprocess.run([CLI, "bench", "--merge", str(out / "results.json"), str(tmp_path / "again.json")],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr
    assert m.stdout.count("| scale.py |") == 1 and m.stdout.count("| scale_b.py |") == 1
    assert "| tasks run / total | 4 / 4 |" in m.stdout
    # merged into one results file too, the torch columns kept
    merged = tmp_path / "merged.json"
    m = subprocess.run([CLI, "bench", "--merge", str(out / "results.json"), str(tmp_path / "again.json"),
                        "--markdown", str(tmp_path / "merged.md"), "--json", str(merged)],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr
    mrows = json.loads(merged.read_text())["rows"]
    assert len(mrows) == 4 and {r["torch_baseline"] for r in mrows} == {"torch_impl", "reference"}
    assert all(r["eager_ms"] > 0 for r in mrows)
    assert (tmp_path / "merged.md").read_text().count("| rowsum_loop") == 2  # rowsum_loop.py and rowsum_loop_b.py
    # the slices' common settings stay: the deepest level (an ablation's merged parts keep theirs)
    mdoc = json.loads(merged.read_text())
    assert mdoc["max_level"] == 0 and mdoc.get("device") == doc.get("device")
    # slices run to different levels: the merged file names none
    doc["max_level"] = 3
    (tmp_path / "deeper.json").write_text(json.dumps(doc))
    mixed = tmp_path / "mixed.json"
    m = subprocess.run([CLI, "bench", "--merge", str(out / "results.json"), str(tmp_path / "deeper.json"),
                        "--markdown", str(tmp_path / "mixed.md"), "--json", str(mixed)],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr
    assert "max_level" not in json.loads(mixed.read_text())


def test_bench_without_torch_leaves_the_columns_empty(tmp_path):
    """--no-torch: no torch timing at all, the columns "–" (not n/a) and no summary line."""
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "rewrite" / "scale.py", suite / "scale.py")
    env = dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               PYTHONPATH=str(ROOT / "python"))
    out = tmp_path / "out"
    r = subprocess.run([CLI, "bench", "--suite", str(suite), "--out", str(out), "--rounds", "1",
                        "--candidates", "1", "--max-level", "0", "--device", "cpu", "--no-torch"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    (row,) = json.loads((out / "results.json").read_text())["rows"]
    assert row["eager_ms"] < 0 and row["compile_ms"] < 0 and row["torch_note"] == ""
    md = (out / "RESULTS.md").read_text()
    assert "torch eager |" in md and "faster than torch" not in md and "n/a" not in md


def test_bench_reads_the_torch_columns_from_its_cache(tmp_path):
    """--torch-cache: measured once per task file and device, read back after;
    a changed task file is measured again; a file that is no cache is refused."""
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "tests" / "data" / "rewrite" / "scale.py", suite / "scale.py")
    env = dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               PYTHONPATH=str(ROOT / "python"), TDX_TORCH_COMPILE_BACKEND="eager")
    cache = tmp_path / "torch.json"

    def bench(out):
        r = subprocess.run([CLI, "bench", "--suite", str(suite), "--out", str(tmp_path / out), "--rounds", "1",
                            "--candidates", "1", "--max-level", "0", "--device", "cpu", "--no-progress",
                            "--torch-cache", str(cache)], capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr
        (row,) = json.loads((tmp_path / out / "results.json").read_text())["rows"]
        return r, row
    r, first = bench("a")
    # measured by this run (in its one-interpreter fill), so not "from the cache"
    assert "bench: torch baselines: 1 measured now" in r.stderr
    assert "from the cache" not in r.stderr and not first.get("torch_cached")
    entries = json.loads(cache.read_text())
    assert len(entries) == 1
    (key, entry), = entries.items()
    assert key.endswith(":cpu") and entry["task"] == "scale.py"
    assert entry["eager_ms"] == first["eager_ms"] > 0
    r, second = bench("b")
    assert "torch baselines of scale.py (from the cache)" in r.stderr
    assert second["torch_cached"] is True and second["eager_ms"] == first["eager_ms"]
    assert second["torch_baseline"] == first["torch_baseline"] and second["torch_note"] == first["torch_note"]
    assert "| torch columns from the cache (measured before) | 1 |" in (tmp_path / "b" / "RESULTS.md").read_text()
    # the task changed: its columns are measured again, under a new key
    with open(suite / "scale.py", "a") as f:
        f.write("\n# changed\n")
    r, third = bench("c")
    assert "from the cache" not in r.stderr and not third.get("torch_cached")
    assert len(json.loads(cache.read_text())) == 2
    # not a cache: refused before anything runs
    cache.write_text("[1, 2]")
    r = subprocess.run([CLI, "bench", "--suite", str(suite), "--out", str(tmp_path / "d"), "--device", "cpu",
                        "--torch-cache", str(cache)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 3 and "not a torch cache" in r.stderr and r.stderr.count("\n") == 1
    assert not (tmp_path / "d").exists()


def test_bench_torch_only_fills_the_cache_in_one_call(tmp_path):
    """--torch-only: the torch columns of every task the cache lacks, measured
    in one interpreter; a task whose timing fails is left out, the others kept."""
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("relu.py", "gelu.py", "swiglu.py"):
        shutil.copy(ROOT / "bench" / "tasks" / name, suite / name)
    broken = (ROOT / "bench" / "tasks" / "relu.py").read_text().replace("def make_inputs(", "def make_inputs_(")
    (suite / "broken.py").write_text(broken)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), TDX_TORCH_COMPILE_BACKEND="eager",
               CUDA_VISIBLE_DEVICES="")
    env.pop("TDX_TEST_TIMER", None)
    cache = tmp_path / "torch.json"

    def fill(*patterns):
        args = [CLI, "bench", "--suite", str(suite), "--torch-only", "--torch-cache", str(cache), "--device", "cpu"]
        for p in patterns:
            args += ["--tasks", p]
        return subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    r = fill("relu.py", "g*.py")
    assert r.returncode == 0, r.stderr
    assert "2 measured now" in r.stderr
    assert sorted(v["task"] for v in json.loads(cache.read_text()).values()) == ["gelu.py", "relu.py"]
    r = fill()  # the whole suite: only swiglu is new; broken.py has no make_inputs
    assert r.returncode == 0, r.stderr
    assert "1 measured now" in r.stderr
    tasks = sorted(v["task"] for v in json.loads(cache.read_text()).values())
    assert tasks == ["gelu.py", "relu.py", "swiglu.py"]
    r = subprocess.run([CLI, "bench", "--suite", str(suite), "--torch-only", "--device", "cpu"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "needs --torch-cache" in r.stderr


def test_fills_at_the_same_time_keep_each_others_entries(tmp_path):
    """Parallel tasks share one cache: each save adds its entries to the file
    as it is then (under CACHE.lock), so neither loses the other's."""
    suite = tmp_path / "suite"
    suite.mkdir()
    names = ("relu.py", "gelu.py", "swiglu.py", "silu_bf16.py")
    for name in names:
        shutil.copy(ROOT / "bench" / "tasks" / name, suite / name)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), TDX_TORCH_COMPILE_BACKEND="eager",
               CUDA_VISIBLE_DEVICES="")
    env.pop("TDX_TEST_TIMER", None)
    cache = tmp_path / "torch.json"
    cache.write_text('{"old:cuda": {"task": "kept.py", "eager_ms": 1.0}}')
    procs = [subprocess.Popen([CLI, "bench", "--suite", str(suite), "--torch-only", "--torch-cache", str(cache),
                               "--device", "cpu", "--tasks", a, "--tasks", b],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for a, b in (names[:2], names[2:])]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        assert "2 measured now" in err
    tasks = sorted(v["task"] for v in json.loads(cache.read_text()).values())
    assert tasks == sorted(names + ("kept.py",))


def test_suite_script_runs_tasks_at_once(tmp_path):
    """bench/gpu/suite.sh with JOBS=2 as a CPU dry run: two tasks start before
    either ends, every task gets its row, the split torch fill leaves one
    cache with every task, and the GPU lock is handed to the harness."""
    suite = tmp_path / "suite"
    suite.mkdir()
    names = ("elementwise_add", "relu", "gelu")
    for n in names:
        shutil.copy(ROOT / "bench" / "tasks" / f"{n}.py", suite / f"{n}.py")
    out, cache, lock = tmp_path / "out", tmp_path / "torch.json", tmp_path / "gpu.lock"
    env = dict(os.environ, DEVICE="cpu", TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               TDX_TORCH_COMPILE_BACKEND="eager", PYTHONPATH=str(ROOT / "python"), CUDA_VISIBLE_DEVICES="",
               JOBS="2", SUITE=str(suite), TDX=CLI, OUT=str(out), TORCH_CACHE=str(cache),
               TRITONDX_GPU_LOCK=str(lock), TOTAL="300")
    r = subprocess.run(["bash", str(ROOT / "bench" / "gpu" / "suite.sh")], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    log = [line for line in r.stderr.splitlines() if line.startswith("== ")]
    starts = [i for i, line in enumerate(log) if line.startswith("== bench ")]
    ends = [i for i, line in enumerate(log) if ": rc=" in line]
    assert len(starts) == 3 and len(ends) == 3, log
    assert starts[1] < ends[0], log  # the second task started before the first ended
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert sorted(row["task"] for row in rows) == sorted(f"{n}.py" for n in names)
    assert all(row["status"] == "ok" for row in rows), rows
    assert sorted(v["task"] for v in json.loads(cache.read_text()).values()) == sorted(f"{n}.py" for n in names)
    assert lock.exists() and (tmp_path / "gpu.lock.turn").exists()
    digest = (out / "digest.txt").read_text()
    assert all(f"{n}/" in digest for n in names) and "  baseline " in digest, digest
    assert sorted(p.name for p in out.iterdir()) == ["RESULTS.md", "digest.txt", "results.json", "suite.tar.gz",
                                                     "torch-cache.json"]
    with tarfile.open(out / "suite.tar.gz") as tar:
        settings = tar.extractfile("suite/settings.txt").read().decode()
    assert "JOBS=2" in settings


def test_a_dry_run_keeps_its_torch_columns_out_of_the_committed_caches(tmp_path):
    """suite.sh with DEVICE=cpu and no TORCH_CACHE: the CPU's torch columns go
    to $TMPDIR/tdx-torch-cpu.json, the cards' caches in bench/results are left
    as they are; REACH_MARGIN reaches bench (settings.txt says it)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "bench" / "tasks" / "elementwise_add.py", suite / "elementwise_add.py")
    caches = sorted((ROOT / "bench" / "results").glob("torch-*.json"))
    before = {c: c.read_bytes() for c in caches}
    out = tmp_path / "out"
    env = dict(os.environ, DEVICE="cpu", TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               TDX_TORCH_COMPILE_BACKEND="eager", PYTHONPATH=str(ROOT / "python"), CUDA_VISIBLE_DEVICES="",
               SUITE=str(suite), TDX=CLI, OUT=str(out), TMPDIR=str(tmp_path), TOTAL="300", REACH_MARGIN="3")
    env.pop("TORCH_CACHE", None)
    r = subprocess.run(["bash", str(ROOT / "bench" / "gpu" / "suite.sh")], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    cpu = json.loads((tmp_path / "tdx-torch-cpu.json").read_text())
    assert [v["task"] for v in cpu.values()] == ["elementwise_add.py"]
    assert {c: c.read_bytes() for c in caches} == before
    with tarfile.open(out / "suite.tar.gz") as tar:
        settings = tar.extractfile("suite/settings.txt").read().decode()
        start = json.loads(tar.extractfile("suite/elementwise_add/elementwise_add/journal.jsonl").readline())
    assert "REACH_MARGIN=3" in settings and "tdx-torch-cpu.json" in settings
    # the loop was told what torch reached and how close counts (3 %)
    assert start["type"] == "start" and start["reach_s"] > 0 and start["reach_margin"] == pytest.approx(1.03)


def test_bench_stops_at_the_target_only_as_fast_as_torch(tmp_path):
    """bench's default reach margin is 0: the journal's start says the loop
    counts torch reached only at its time or faster."""
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(ROOT / "bench" / "tasks" / "relu.py", suite / "relu.py")
    env = dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               TDX_TORCH_COMPILE_BACKEND="eager", PYTHONPATH=str(ROOT / "python"), CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([CLI, "bench", "--suite", str(suite), "--out", str(tmp_path / "runs"), "--device", "cpu",
                        "--rounds", "1", "--candidates", "1", "--json", str(tmp_path / "r.json")],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr
    journal = next((tmp_path / "runs").rglob("journal.jsonl"))
    start = json.loads(journal.read_text().splitlines()[0])
    assert start["reach_s"] > 0 and start["reach_margin"] == 1.0, start


def test_beside_torch_picks_the_near_rows_and_reports_each(tmp_path):
    """bench/gpu/beside_torch.py on a slice folder: the rows within the band
    of torch.compile are the ones timed, each gets its table row (here, with
    no GPU, the reason it could not be timed), and the summary counts them."""
    import sys
    sys.path.insert(0, str(ROOT / "bench" / "gpu"))
    import beside_torch

    rows = {"relu": (0.2538e-3, 0.2556), "gelu": (0.1749e-3, 0.1893), "row_sum": (0.2369e-3, 0.2332),
            "elementwise_add": (0.2e-3, None)}
    for name, (final, comp) in rows.items():
        (tmp_path / name).mkdir()
        shutil.copy(ROOT / "bench" / "tasks" / f"{name}.py", tmp_path / name / f"{name}.opt.py")
        row = {"task": f"{name}.py", "final_s": final, "compile_ms": comp, "kept": 1}
        (tmp_path / name / "results.json").write_text(json.dumps({"rows": [row]}))
    (tmp_path / "stray").mkdir()  # a folder without results is passed over
    near = beside_torch.near_rows(str(tmp_path), 0.05)
    assert [n for n, _ in near] == ["relu", "row_sum"]  # gelu 7.6 % ahead, add has no compile time
    assert [n for n, _ in beside_torch.near_rows(str(tmp_path), 0.10)] == ["gelu", "relu", "row_sum"]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu" / "beside_torch.py"), str(tmp_path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 results within 5% of torch.compile" in r.stdout
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("| relu |") or ln.startswith("| row_sum |")]
    assert len(lines) == 2 and all("| 0.993 |" in ln or "| 1.016 |" in ln for ln in lines), r.stdout
    assert "of the 0 timed: 0 by the table's columns, 0 side by side" in r.stdout


def test_tie_variants_match_their_tasks_in_the_interpreter():
    """bench/gpu/tie_variants.py --check: every variant the GPU call will time
    (no mask when the size divides the block, blocks, warps, eviction) runs
    through Triton's interpreter at its task's check shapes and returns what
    the task's own kernel returns, so a variant's edit cannot rot unseen."""
    variants_check("tie_variants.py", 18)


def test_tile_sweep_variants_match_their_tasks_in_the_interpreter():
    """bench/gpu/tile_sweep.py --check: every tile, warps, split, direct-store
    and load-hint variant of the kept column reductions matches the task's
    reference at its check shapes through the interpreter."""
    variants_check("tile_sweep.py", 42)


def test_tile_sweep_runs_its_whole_path_dry():
    """bench/gpu/tile_sweep.py --dry: the GPU call's path (every variant
    loaded, compared with the kept output, timed with torch.compile, the
    table sorted) through the interpreter and a CPU timer: a row for each
    variant and for torch.compile, every variant equal to the kept kernel
    within a bf16 step."""
    import sys
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), CUDA_VISIBLE_DEVICES="",
               TDX_TORCH_COMPILE_BACKEND="eager")
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu" / "tile_sweep.py"), "--dry"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    rows = [ln.split(" | ") for ln in r.stdout.splitlines() if ln.startswith("| col_")]
    assert len(rows) == 42 + 2, r.stdout
    assert sum(row[1] == "torch.compile" for row in rows) == 2
    for row in rows:
        assert row[1] == "torch.compile" or float(row[5].rstrip(" |")) <= 2 ** -8, row


def test_inductor_code_writes_what_torch_compile_generated(tmp_path):
    """bench/gpu/inductor_code.py with DEVICE=cpu: Inductor's module for the
    task's torch_impl (C++ for the CPU here) written under $OUT/inductor, one
    line for the task."""
    import sys
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"), CUDA_VISIBLE_DEVICES="", DEVICE="cpu",
               OUT=str(tmp_path), TORCHINDUCTOR_CACHE_DIR=str(tmp_path / "inductor-cache"))
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu" / "inductor_code.py"), "relu"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "== relu (torch_impl): 1 module(s)" in r.stdout
    assert "def call(" in (tmp_path / "inductor" / "relu.py").read_text()


def variants_check(script, n):
    """bench/gpu/SCRIPT --check through the interpreter: n lines, each ok."""
    import sys
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(ROOT / "python"), CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu" / script), "--check"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == n and all(ln.endswith(": ok") for ln in lines), lines


def test_splitk_variants_match_the_reference_twice_in_the_interpreter():
    """bench/gpu/splitk_variants.py --check: every split-k / split-reduction
    variant, with atomics and as one kernel whose last program per tile adds
    the slabs, matches the reference at each check shape, twice in a row (the
    one-kernel form's counters must be back at zero after a launch)."""
    variants_check("splitk_variants.py", 63)


def test_journal_digest_shows_the_paired_ratio_and_where_it_would_decide_otherwise(tmp_path):
    """bench/gpu/journal_digest.py on a journal whose candidates carry the
    rep-by-rep ratio: each line shows it with its interval, marked where the
    interval and the verdict disagree."""
    import sys
    run = tmp_path / "t" / "t.tdx"
    run.mkdir(parents=True)

    def cand(i, verdict, med, lo, hi, iqr):
        tm = {"base_median_s": 1e-3, "base_iqr_s": iqr * 1e-3, "cand_median_s": med * 1e-3,
              "cand_iqr_s": iqr * 1e-3, "fraction": 0.5, "ratio_median": med, "ratio_lo": lo, "ratio_hi": hi}
        return {"type": "candidate", "round": 1, "index": i, "family": "retune", "verdict": verdict, "timing": tm}
    entries = [cand(1, "slower", 0.945, 0.93, 0.96, 0.063), cand(2, "faster", 0.98, 0.975, 0.985, 0.004),
               cand(3, "faster", 0.99, 0.98, 1.002, 0.005), {"type": "stop", "reason": "round limit reached"}]
    entries[1]["check_parts_s"] = {"child": 1.0, "alone": 2.5}  # ran out of GPU memory, checked again alone
    (run / "journal.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu" / "journal_digest.py"), str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("  r1")]
    assert "paired 0.945 [0.930, 0.960] (would keep)" in lines[0]
    assert "paired 0.980 [0.975, 0.985])" in lines[1]
    assert "paired 0.990 [0.980, 1.002] (would not)" in lines[2]
    assert lines[1].endswith("checked again alone after running out of GPU memory (2.5 s)"), lines[1]
    assert "alone" not in lines[0] + lines[2]
