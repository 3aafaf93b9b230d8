"""heavy-first: the grid axis whose programs' loop grows with their id
counted down. It applies to the causal attention task as given and as the
suite keeps it (peeled), the result passes the task's check through the
interpreter, it does not apply to its own result, and each kernel it must
leave alone is left alone for its own reason (its twin without that reason
gets a candidate)."""
import os
import subprocess
from pathlib import Path

import pytest

from conftest import rewrite_family
from tritondx_harness.check import check_task

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rewrite"
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))
CAUSAL = ROOT / "bench" / "tasks" / "attention_causal_fp16.py"
COUNTED_DOWN = "    pid_m = (tl.num_programs(0) - 1 - tl.program_id(0))\n"


def test_heavy_first_on_the_causal_attention(tmp_path):
    (cand, summary), = rewrite_family("heavy-first", CAUSAL, tmp_path / "a")
    text = Path(cand).read_text()
    assert text == CAUSAL.read_text().replace("    pid_m = tl.program_id(0)\n", COUNTED_DOWN)
    assert "pid_m counted down along grid axis 0" in summary and "loop at line 21" in summary
    res = check_task(str(CAUSAL), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")
    assert rewrite_family("heavy-first", cand, tmp_path / "b") == []  # counted down already


def test_heavy_first_after_peel_masks(tmp_path):
    """The suite keeps the attention peeled: the first of its two key loops
    runs to _tdx_full, a name bound to an expression of pid_m."""
    (peeled, _), = rewrite_family("peel-masks", CAUSAL, tmp_path / "p")
    (cand, summary), = rewrite_family("heavy-first", peeled, tmp_path / "a")
    assert COUNTED_DOWN in Path(cand).read_text()
    assert "loop at line 22" in summary
    res = check_task(str(CAUSAL), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")


def test_heavy_first_triage_names_the_loop(tmp_path):
    r = subprocess.run([CLI, "triage", str(CAUSAL)], capture_output=True, text=True, timeout=60)
    assert "attention_causal_fp16.py:21:5: note: the loop at line 21 runs longer the larger pid_m" in r.stdout
    assert "[TDX032]" in r.stdout
    (cand, _), = rewrite_family("heavy-first", CAUSAL, tmp_path)
    r = subprocess.run([CLI, "triage", cand], capture_output=True, text=True, timeout=60)
    assert "[TDX032]" not in r.stdout


@pytest.mark.parametrize("kernel,old,new", [
    ("tail_sum_kernel", "range(0, n - pid * BLOCK, BLOCK)", "range(0, n + pid * BLOCK, BLOCK)"),
    ("twice_kernel", "tl.store(y_ptr + tl.program_id(0),", "tl.store(y_ptr + pid,"),
    ("walk_kernel", "range(pid, tl.cdiv(n, BLOCK), tl.num_programs(0))", "range(0, pid + 1, tl.num_programs(0))"),
    ("rebound_kernel", "    end = n - end\n", ""),
])
def test_heavy_first_declines(kernel, old, new, tmp_path):
    """The work falls as the id grows; the id read twice; a walk from the
    id; a bound through a name bound twice: no candidate. Without that one
    reason: a candidate for that kernel alone."""
    src = DATA / "heavy_first_declines.py"
    assert rewrite_family("heavy-first", src, tmp_path / "a") == []
    text = src.read_text()
    assert text.count(old) == 1
    twin = tmp_path / "twin.py"
    twin.write_text(text.replace(old, new))
    (cand, summary), = rewrite_family("heavy-first", twin, tmp_path / "b")
    assert summary.startswith(kernel + ":")
