"""hoist-scale and exp2 on the attention kernels: what each writes, the
kernels hoist-scale must leave alone, and what the two do to the key loop's
sm_90 SASS (compiled ahead of time with no GPU, counted per instruction)."""
import collections
import sys
from pathlib import Path

import pytest

from conftest import harness, rewrite_family
from tritondx_harness.check import check_task

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "bench" / "tasks"
sys.path.insert(0, str(ROOT / "bench"))
import sass_loops  # noqa: E402


def one(family, task, out_dir):
    (cand, summary), = rewrite_family(family, task, out_dir)
    return Path(cand), summary


def test_exp2_puts_the_row_maximum_in_a_multiply_add(tmp_path):
    """tl.exp(qk - m_new[:, None]) becomes qk * log2(e) - m_new[:, None] * log2(e): the row's
    product once per row, one FFMA an element; a difference of two vectors keeps the
    multiply outside."""
    cand, _ = one("exp2", TASKS / "attention_fp16.py", tmp_path)
    text = cand.read_text()
    assert "p = tl.exp2(qk * 1.4426950408889634 - m_new[:, None] * 1.4426950408889634)" in text, text
    assert "alpha = tl.exp2((m_i - m_new) * 1.4426950408889634)" in text


def test_peeled_attention_shares_one_scaled_query(tmp_path):
    """After peel-masks the key loop is two loops; both read the one scaled copy of q,
    made before the first of them; the check passes on the CPU."""
    peeled, _ = one("peel-masks", TASKS / "attention_fp16.py", tmp_path / "p")
    cand, summary = one("hoist-scale", peeled, tmp_path / "h")
    text = cand.read_text()
    assert text.count("_tdx_s0 = (q * sm_scale).to(q.dtype)") == 1
    assert text.count("qk = tl.dot(_tdx_s0, tl.trans(k))") == 2 and "* sm_scale\n" not in text
    assert text.index("_tdx_s0 =") < text.index("for start_n")
    assert "2 tl.dot results scaled by sm_scale" in summary
    res = check_task(str(TASKS / "attention_fp16.py"), device="cpu", seeds=(0,), candidate=str(cand))
    assert res["ok"], res.get("error")
    assert rewrite_family("hoist-scale", cand, tmp_path / "again") == []


KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def k(a_ptr, b_ptr, o_ptr, n, scale, BM: tl.constexpr, BN: tl.constexpr):
    r = tl.arange(0, BM)
    c = tl.arange(0, BN)
    a = tl.load(a_ptr + r[:, None] * BN + c[None, :])
{pre}    acc = tl.zeros((BM, BM), dtype=tl.float32)
    for j in range(0, n):
{body}    tl.store(o_ptr + r[:, None] * BM + r[None, :], acc)
"""
PLAIN = "        b = tl.load(b_ptr + j * BN * BM + c[:, None] * BM + r[None, :])\n"


def kernel(pre="", body=PLAIN + "        acc += tl.dot(a, b) * scale\n"):
    return KERNEL.format(pre=pre, body=body)


def test_scale_bound_to_a_name_before_the_loop(tmp_path):
    """A scale computed once before the loop (the log2(e) folded into it) is hoisted, after
    its own binding."""
    src = kernel(pre="    s2 = scale * 1.4426950408889634\n", body=PLAIN + "        acc += s2 * tl.dot(a, b)\n")
    task = tmp_path / "k.py"
    task.write_text(src)
    cand, _ = one("hoist-scale", task, tmp_path / "out")
    text = cand.read_text()
    assert "_tdx_s0 = (a * s2).to(a.dtype)" in text and "acc += tl.dot(_tdx_s0, b)" in text
    assert text.index("s2 = scale") < text.index("_tdx_s0 =") < text.index("for j")


@pytest.mark.parametrize("src", [
    kernel(body=PLAIN + "        acc = tl.dot(a, b, acc) * scale\n"),               # an accumulator
    kernel(body=PLAIN + "        acc += tl.dot(a, b, acc=acc) * scale\n"),
    kernel(body=PLAIN + "        acc += tl.dot(a, b) * j\n"),                       # the loop's index
    kernel(body=PLAIN + "        acc += tl.dot(a, b) * tl.max(b)\n"),               # a value of the loop
    kernel(body=PLAIN + "        a2 = a\n        acc += tl.dot(a2, b) * scale\n"),  # operand bound in the loop
    kernel(pre="    a = a * 2\n"),                                                  # operand bound twice
    kernel(pre="    s2 = scale\n    s2 = s2 * 2\n",
           body=PLAIN + "        acc += tl.dot(a, b) * s2\n"),                      # scale bound twice
    kernel(body=PLAIN + "        acc += tl.dot(tl.trans(b), b) * scale\n"),
    kernel(body=PLAIN + "        acc += tl.dot(a, b, out_dtype=tl.int32) * scale\n"),   # integer operands
], ids=["acc-positional", "acc-keyword", "loop-index", "loop-value", "operand-in-loop", "operand-twice",
        "scale-twice", "no-invariant-operand", "int-product"])
def test_hoist_scale_leaves_alone(src, tmp_path):
    task = tmp_path / "k.py"
    task.write_text(src)
    assert rewrite_family("hoist-scale", task, tmp_path / "out") == [], src


def _key_loop(sass_path):
    """Opcode counts of the longest loop of a SASS listing (bench/sass_loops.py's reading: its
    label to the branch back), and its length."""
    body = max(sass_loops.loops(sass_path), key=len)
    return collections.Counter(sass_loops.opcode(t) for t in body), len(body)


def _sass(task, out):
    cap = harness("capture", "--mode", "aot", "--task", str(task), "--out", str(out)).json
    assert cap["ok"], cap.get("error")
    (k,) = cap["kernels"]
    return k["artifacts"]["sass"]


def test_the_key_loop_loses_its_multiplies(tmp_path):
    """The bench attention's key loop in sm_90 SASS (64 x 64 blocks, 128 threads: 32 scores a
    thread): tl.exp's range reduction (FSETP, two FMULs a score) and the scale are ~166
    FMULs; exp2 turns the exponent into one FFMA a score; hoist-scale then removes the
    scale's FMUL, leaving the rescale of the accumulator (32) and the row vectors'."""
    base, n0 = _key_loop(_sass(TASKS / "attention_fp16.py", tmp_path / "c0"))
    e2, _ = one("exp2", TASKS / "attention_fp16.py", tmp_path / "e")
    exp2, n1 = _key_loop(_sass(e2, tmp_path / "c1"))
    hs, _ = one("hoist-scale", e2, tmp_path / "h")
    both, n2 = _key_loop(_sass(hs, tmp_path / "c2"))
    assert base["FMUL"] >= 128 and base["FSETP"] >= 32, base
    assert exp2["FFMA"] >= 32 and exp2["FMUL"] <= base["FMUL"] - 64 and exp2["FSETP"] < 8, exp2
    assert both["FMUL"] <= exp2["FMUL"] - 28 and both["FFMA"] >= 32, both
    assert n2 < n1 < n0, (n0, n1, n2)


def _wgmma_operands(task, out):
    """The first-operand forms of a kernel's sm_90 HGMMAs (a register, or a shared-memory
    descriptor `gdesc[...]`) and its registers a thread."""
    cap = harness("capture", "--mode", "aot", "--task", str(task), "--out", str(out)).json
    assert cap["ok"], cap.get("error")
    (k,) = cap["kernels"]
    forms = set()
    for line in Path(k["artifacts"]["sass"]).read_text().splitlines():
        if "HGMMA" in line:
            first = line.split("HGMMA")[1].split(",")[1].strip()
            forms.add("desc" if first.startswith("gdesc") else "reg")
    return forms, k["resources"]["registers"]


def test_a_scaled_second_operand_stays_in_shared_memory(tmp_path):
    """TDX026 names hoist-scale where the scaled operand is a dot's second one (a fixed weight
    tile applied to every row block): a wgmma reads B from shared memory whatever computes it,
    so the hoisted `(w * alpha)` keeps both operands as descriptors and the registers as they
    were (the attention's hoisted q, a first operand, went to registers: 128 -> 132 a thread,
    one block an SM instead of two, and the H200 ran it slower). The candidate passes the check."""
    task = ROOT / "tests" / "data" / "triage" / "scaled_weight_rows.py"
    cand, summary = one("hoist-scale", task, tmp_path / "h")
    assert "_tdx_s0 = (w * alpha).to(w.dtype)" in cand.read_text() and "tl.dot(x, _tdx_s0)" in cand.read_text()
    before, regs0 = _wgmma_operands(task, tmp_path / "c0")
    after, regs1 = _wgmma_operands(cand, tmp_path / "c1")
    assert before == after == {"desc"} and regs1 <= regs0, (before, after, regs0, regs1)
    res = check_task(str(task), device="cpu", seeds=(0, 1), candidate=str(cand))
    assert res["ok"], res.get("error")
