"""`tritondx bench` on a two-task suite on the CPU (checks through the
interpreter, timing from the TDX_TEST_TIMER seam): rows, the summary table,
and merging results files."""
import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))


def test_bench_runs_a_suite_and_merges(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    for name in ("scale.py", "rowsum_loop.py"):
        shutil.copy(ROOT / "tests" / "data" / "rewrite" / name, suite / name)
    env = dict(os.environ, TDX_TEST_TIMER=str(ROOT / "tests" / "helpers" / "model_timer.py"),
               PYTHONPATH=str(ROOT / "python"))
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
    md = (out / "RESULTS.md").read_text()
    assert "| geomean speedup |" in md and "| scale.py |" in md
    # merging two results files gives one table with every row
    shutil.copy(out / "results.json", tmp_path / "again.json")
    m = subprocess.run([CLI, "bench", "--merge", str(out / "results.json"), str(tmp_path / "again.json")],
                       capture_output=True, text=True, timeout=60)
    assert m.returncode == 0, m.stderr
    assert m.stdout.count("| scale.py |") == 2 and "| tasks run / total | 4 / 4 |" in m.stdout
