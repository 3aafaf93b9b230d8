"""check through Triton's interpreter: good tasks pass, planted bugs fail
with the right reason; the comparison rules on their own."""
import math
from pathlib import Path

import pytest
import torch

from conftest import harness, task
from tritondx_harness.check import (MARKER, check_task, compare, poisoned_allocations, tolerance_for,
                                    uses_tf32)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["add.py", "rowsum.py", "scale_rows.py", "kb_scale.py"])
def test_good_tasks_pass(name):
    res = check_task(task(name), device="cpu")
    assert res["ok"] is True, res["error"]
    assert res["error"] is None
    assert len(res["cases"]) >= 3
    assert {c["seed"] for c in res["cases"]} == {0, 1, 2}
    for c in res["cases"]:
        assert c["ok"] and c["rel_err"] <= c["tolerance"]


def test_every_check_shape_and_seed_is_a_case():
    res = check_task(task("add.py"), device="cpu", seeds=(3, 4, 5))
    shapes = [tuple(c["shape"]) for c in res["cases"]]
    assert shapes == [(1000,)] * 3 + [(256,)] * 3 + [(1,)] * 3
    assert [c["seed"] for c in res["cases"]] == [3, 4, 5] * 3


@pytest.mark.parametrize("name,reason", [
    ("bug_off_by_one_mask.py", "tolerance"),
    ("bug_wrong_axis.py", "tolerance"),
    ("bug_unwritten_tail.py", "unwritten"),
    ("bug_all_zero.py", "constant"),
    ("bug_nan_output.py", "nan"),
    ("task_raises.py", "raised"),
])
def test_planted_bugs_fail_with_the_right_reason(name, reason):
    res = check_task(task(name), device="cpu")
    assert res["ok"] is False
    assert res["error_kind"] == "incorrect"
    assert res["reason"] == reason, res["error"]
    assert res["error"]


def test_unwritten_tail_passes_on_a_multiple_of_the_block():
    # the bug only shows past the last full block: proof the poison is what catches it
    res = check_task(task("bug_unwritten_tail.py"), device="cpu", shapes=[(256,)])
    assert res["ok"] is True
    res = check_task(task("bug_unwritten_tail.py"), device="cpu", shapes=[(300,)])
    assert res["ok"] is False and res["reason"] == "unwritten"
    assert res["cases"][0]["outputs"][0]["unwritten"] == 300 - 256


def test_dtype_is_passed_to_make_inputs_and_sets_the_tolerance():
    res = check_task(task("add.py"), device="cpu", seeds=(0,), dtype="float16")
    assert res["ok"] is True, res["error"]
    out = res["cases"][0]["outputs"][0]
    assert out["dtype"] == "float16" and out["tolerance"] == 1e-2 and out["tolerance_basis"] == "float16"


def test_candidate_passes_and_is_reported():
    res = check_task(task("add.py"), device="cpu", candidate=task("cand_add_good.py"))
    assert res["ok"] is True, res["error"]
    assert res["candidate"].endswith("cand_add_good.py")
    # where its seconds went: the candidate's child, then the judging here
    assert set(res["phases_s"]) == {"child", "judge"}
    assert res["phases_s"]["child"] > 0 and res["phases_s"]["judge"] > 0


def test_the_reply_names_the_loosest_tolerance_it_judged_by(tmp_path):
    """An fp32 task is judged at 1e-5; the same task with its dot moved from
    IEEE to tf32 at tf32's 1e-3, and the reply says so (the loop journals
    it, the bench marks a result judged looser than the task as given)."""
    src = (ROOT / "tests" / "data" / "rewrite" / "matmul_ieee.py").read_text().replace("TOLERANCE = 1e-3\n", "")
    (tmp_path / "mm.py").write_text(src)
    (tmp_path / "mm_tf32.py").write_text(src.replace('input_precision="ieee"', 'input_precision="tf32"'))
    res = check_task(str(tmp_path / "mm.py"), device="cpu", seeds=(0,))
    assert res["ok"] is True and res["tolerance"] == 1e-5, res
    res = check_task(str(tmp_path / "mm.py"), device="cpu", seeds=(0,), candidate=str(tmp_path / "mm_tf32.py"))
    assert res["ok"] is True and res["tolerance"] == 1e-3, res


def test_candidate_with_another_dtype_fails():
    res = check_task(task("add.py"), device="cpu", candidate=task("cand_add_fp16.py"))
    assert res["ok"] is False and res["reason"] == "dtype"
    assert "float16" in res["error"] and "float32" in res["error"]


def test_candidate_that_changes_launch_signature_fails():
    res = check_task(task("add.py"), device="cpu", candidate=task("cand_add_signature.py"))
    assert res["ok"] is False and res["reason"] == "signature"
    assert "alpha" in res["error"]


def test_candidate_inputs_and_reference_come_from_the_original(tmp_path):
    # a candidate that also "fixes" reference to match its bug must still fail
    src = open(task("bug_all_zero.py")).read().replace(
        "return x.double() + y.double()", "return (x.double() + y.double()) * 0")
    cand = tmp_path / "cand.py"
    cand.write_text(src)
    res = check_task(task("add.py"), device="cpu", candidate=str(cand))
    assert res["ok"] is False and res["reason"] == "constant"


def test_a_kernel_error_is_placed_at_the_kernel_line(tmp_path):
    """Triton's interpreter re-raises a kernel's NameError from its own files:
    the reason names the candidate's line, not the interpreter's."""
    src = open(task("add.py")).read().replace("x + y, mask=mask)", "x + undefined_name, mask=mask)")
    cand = tmp_path / "cand_nameerror.py"
    cand.write_text(src)
    line = src.splitlines().index("    tl.store(z_ptr + offs, x + undefined_name, mask=mask)") + 1
    res = check_task(task("add.py"), device="cpu", seeds=(0,), candidate=str(cand))
    assert res["ok"] is False and res["reason"] == "raised"
    assert "undefined_name" in res["error"], res["error"]
    assert f"(at {cand}:{line})" in res["error"], res["error"]
    assert "interpreter.py" not in res["error"]


def test_candidate_cannot_loosen_the_tolerance(tmp_path):
    # an off-by-one candidate that declares a huge TOLERANCE still fails: TOLERANCE is the original's
    src = open(task("bug_off_by_one_mask.py")).read() + "\nTOLERANCE = 10.0\n"
    cand = tmp_path / "cand_loose.py"
    cand.write_text(src)
    res = check_task(task("add.py"), device="cpu", seeds=(0,), candidate=str(cand))
    assert res["ok"] is False and res["reason"] == "tolerance"


def test_kernelbench_uses_the_same_weights(tmp_path):
    # a ModelNew that ignores the copied weights (keeps its zeros) fails
    src = open(task("kb_scale.py")).read().replace(
        "scale_relu_kernel[(n_rows,)](x, self.w,", "scale_relu_kernel[(n_rows,)](x, self.w * 0 + 1,")
    bad = tmp_path / "kb_bad.py"
    bad.write_text(src)
    assert check_task(task("kb_scale.py"), device="cpu")["ok"] is True
    res = check_task(str(bad), device="cpu")
    assert res["ok"] is False and res["reason"] == "tolerance"


def test_check_verb_through_the_child():
    r = harness("check", "--task", task("bug_unwritten_tail.py"), "--shape", "300", "--seeds", "0,1,2")
    obj = r.json
    assert obj["ok"] is False and obj["reason"] == "unwritten"
    assert len(obj["cases"]) == 3


def test_check_task_after_triton_was_imported_without_the_interpreter():
    # check_task is a library function: the caller may have imported triton
    # (so tl.standard is made of JITFunctions) before asking for the CPU.
    import os
    import subprocess
    import sys

    from conftest import PYDIR
    code = ("import triton, triton.language as tl\n"
            "from tritondx_harness.check import check_task\n"
            f"r = check_task({task('sigmoid_cdiv.py')!r}, seeds=(0,))\n"
            "print('RESULT', r['ok'], r['error'])\n")
    env = dict(os.environ, PYTHONPATH=PYDIR, CUDA_VISIBLE_DEVICES="")
    env.pop("TRITON_INTERPRET", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert "RESULT True None" in p.stdout, p.stdout + p.stderr


# ---- the rules on their own

def test_tolerances_by_dtype():
    assert tolerance_for(torch.float32) == (1e-5, "float32")
    assert tolerance_for(torch.float32, uses_tf32=True) == (1e-3, "tf32")
    assert tolerance_for(torch.float16) == (1e-2, "float16")
    assert tolerance_for(torch.bfloat16) == (1e-2, "bfloat16")
    assert tolerance_for(torch.int32) == (0.0, "int")
    assert tolerance_for(torch.float16, override=3e-3) == (3e-3, "task")
    assert tolerance_for(torch.float16, override={"float16": 5e-3}) == (5e-3, "task")
    assert tolerance_for(torch.float32, override={"float16": 5e-3}) == (1e-5, "float32")


def test_tf32_detection():
    assert uses_tf32("acc += tl.dot(a, b)")
    assert uses_tf32("acc = tl.dot(a, b, acc=acc, input_precision='tf32')")
    assert not uses_tf32('acc += tl.dot(a, b, input_precision="ieee")')
    assert not uses_tf32("acc += tl.dot(a, b, allow_tf32=False)")
    assert not uses_tf32("x = tl.sum(a * b, axis=1)")


def test_compare_relative_error_norm():
    ref = torch.tensor([3.0, 4.0], dtype=torch.float64)
    out = torch.tensor([3.0, 4.0 + 5e-5], dtype=torch.float32)
    v = compare(out, ref, 1e-4)
    assert v["ok"] and math.isclose(v["rel_err"], 1e-5, rel_tol=1e-2)
    v = compare(out, ref, 1e-6)
    assert not v["ok"] and v["reason"] == "tolerance"


def test_compare_shape_dtype_nan_constant():
    ref = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    assert compare(torch.zeros(3, 2), ref, 1e-5)["reason"] == "shape"
    assert compare(ref.float(), ref, 1e-5, want_dtype=torch.float16)["reason"] == "dtype"
    nan = ref.clone().float()
    nan[1, 2] = float("nan")
    assert compare(nan, ref, 1e-5)["reason"] == "nan"
    assert compare(torch.zeros(2, 3), ref, 1e-5)["reason"] == "constant"
    assert compare(torch.full((2, 3), 7.0), ref, 1e-5)["reason"] == "constant"
    # a constant reference may be matched by a constant output
    assert compare(torch.full((2, 3), 7.0), torch.full((2, 3), 7.0, dtype=torch.float64), 1e-5)["ok"]
    # NaN where the reference has NaN is fine
    r2 = ref.clone()
    r2[0, 0] = float("nan")
    o2 = r2.float().clone()
    assert compare(o2, r2, 1e-5)["ok"]
    assert compare("not a tensor", ref, 1e-5)["reason"] == "type"


def test_compare_tells_unwritten_from_nan():
    ref = torch.ones(4, dtype=torch.float64) * torch.arange(1, 5)
    out = ref.float().clone()
    out[3] = float("nan")
    marker = ref.float().clone()
    marker[3] = MARKER
    assert compare(out, ref, 1e-5, marker_out=marker)["reason"] == "unwritten"
    marker[3] = float("nan")
    assert compare(out, ref, 1e-5, marker_out=marker)["reason"] == "nan"


def _whole(out, ref):
    """The relative error norm and largest difference of out from ref in one piece."""
    o, r = out.double().reshape(-1), ref.double().reshape(-1)
    fin = torch.isfinite(r)
    d = o[fin] - r[fin]
    return float(torch.linalg.vector_norm(d) / torch.linalg.vector_norm(r[fin])), float(d.abs().max())


def test_compare_in_slices_is_compare_in_one_piece(monkeypatch):
    """Slices of 7 elements (a prime, so no slice lines up with a row) give the
    verdicts and numbers of the whole tensor."""
    import tritondx_harness.check as chk
    g = torch.Generator().manual_seed(0)
    ref = torch.randn(13, 11, generator=g, dtype=torch.float64)
    out = (ref + 1e-6 * torch.randn(13, 11, generator=g, dtype=torch.float64)).float()
    whole = compare(out, ref, 1e-5)
    monkeypatch.setattr(chk, "CHUNK", 7)
    sliced = compare(out, ref, 1e-5)
    assert sliced["ok"] and whole["ok"]
    rel, mx = _whole(out, ref)
    for v in (whole, sliced):
        assert math.isclose(v["rel_err"], rel, rel_tol=1e-12) and math.isclose(v["max_abs_err"], mx, rel_tol=1e-12)
    # a NaN in the reference's fourth slice, matched by the output: ignored by the norms
    r2, o2 = ref.clone(), out.clone()
    r2[3, 2] = o2[3, 2] = float("nan")
    v = compare(o2, r2, 1e-5)
    assert v["ok"] and math.isclose(v["rel_err"], _whole(o2, r2)[0], rel_tol=1e-12)
    o2[3, 2] = 1.0
    assert compare(o2, r2, 1e-5)["reason"] == "nan"
    # unwritten elements found in a later slice, reported at their 2-D index
    o3, mk = out.clone(), out.clone()
    o3[9, 4] = o3[12, 10] = float("nan")
    mk[9, 4] = mk[12, 10] = MARKER
    v = compare(o3, ref, 1e-5, marker_out=mk)
    assert v["reason"] == "unwritten" and "2 of 143" in v["message"] and "index [9, 4]" in v["message"]
    # constant across slices, and a constant that breaks only in the last one
    assert compare(torch.full((13, 11), 2.5), ref, 1e-5)["reason"] == "constant"
    c = torch.full((13, 11), 2.5)
    c[12, 10] = 3.0
    assert compare(c, ref, 1e-5)["reason"] == "tolerance"
    # int outputs still holding the poison sentinel, in any slice
    ri = torch.arange(143, dtype=torch.int64).reshape(13, 11)
    oi = ri.clone()
    oi[11, 0] = torch.iinfo(torch.int64).min
    v = compare(oi, ri, 0.0)
    assert v["reason"] == "unwritten" and v["unwritten"] == 1


def test_poisoned_allocations_fill_and_restore():
    orig = torch.empty
    with poisoned_allocations("nan"):
        a = torch.empty(4)
        b = torch.empty_like(torch.zeros(3, dtype=torch.float16))
        c = torch.empty_strided((2, 2), (2, 1))
        d = torch.zeros(2).new_empty(5)
        i = torch.empty(3, dtype=torch.int32)
        z = torch.zeros(3)
    assert torch.isnan(a).all() and torch.isnan(b).all() and torch.isnan(c).all() and torch.isnan(d).all()
    assert (i == torch.iinfo(torch.int32).min).all()
    assert (z == 0).all()
    assert torch.empty is orig


def test_bench_shape_catches_a_candidate_wrong_only_at_size():
    cand = task("cand_add_capped_grid.py")
    small = check_task(task("add.py"), device="cpu", candidate=cand)
    assert small["ok"] is True, small["error"]
    res = check_task(task("add.py"), device="cpu", candidate=cand, bench_shape=True)
    assert res["ok"] is False
    last = res["cases"][-1]
    assert tuple(last["shape"]) == (1 << 20,) and last["seed"] == 0
    assert last["reason"] == "unwritten"
    assert len(res["cases"]) == 3 * 3 + 1
