"""capture --mode aot with no GPU: artifacts, the launch's real
specialization, counterfactual compiles, remarks and resource usage."""
import os
import re

import pytest

from conftest import harness, task
from tritondx_harness.compile import parse_ptxas_log, parse_remarks


def _args(kernel):
    return {a["name"]: a for a in kernel["args"]}


def _global_access(ptx_path):
    with open(ptx_path) as f:
        return [ln.strip() for ln in f if re.search(r"\b(ld|st)\.global", ln)]


@pytest.fixture(scope="module")
def scale_rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("cap")
    return harness("capture", "--mode", "aot", "--task", task("scale_rows.py"), "--out", str(out)).json


def test_artifacts_exist(scale_rows):
    assert scale_rows["ok"] is True, scale_rows.get("error")
    assert scale_rows["target"] == {"backend": "cuda", "arch": 90, "warp_size": 32}
    (k,) = scale_rows["kernels"]
    assert k["name"] == "scale_rows" and k["line"] == 10
    for ext in ("ttir", "ttgir", "llir", "ptx", "cubin"):
        path = k["artifacts"][ext]
        assert os.path.isfile(path) and os.path.getsize(path) > 0, ext
    with open(k["artifacts"]["ptx"]) as f:
        assert ".target sm_90a" in f.read()
    # SASS from nvdisasm, mapped to source lines
    with open(k["artifacts"]["sass"]) as f:
        sass = f.read()
    assert 'scale_rows.py", line 15' in sass
    assert re.search(r"\bLDG\.E", sass) and re.search(r"\bSTG\.E", sass)


def test_specialization_is_the_launchs(scale_rows):
    (k,) = scale_rows["kernels"]
    args = _args(k)
    # aligned pointers and n_cols = 1024 get divisibility 16
    assert k["divisibility_16"] == ["x_ptr", "w_ptr", "y_ptr", "n_cols"]
    assert args["x_ptr"]["value"]["data_ptr_mod16"] == 0
    # stride_row = 1024 is a multiple of 16 but is in do_not_specialize
    assert args["stride_row"]["do_not_specialize"] is True
    assert args["stride_row"]["value"]["value"] == 1024
    assert args["stride_row"]["divisibility"] is None
    assert k["signature"]["stride_row"] == "i32"
    # stride_col == 1 became a constant
    assert k["constants"] == {"stride_col": 1}
    assert k["signature"]["stride_col"] == "constexpr"
    assert args["stride_col"]["specialized_constant"] is True
    assert k["constexprs"] == {"stride_col": 1, "BLOCK": 1024}
    assert k["num_warps"] == 4 and k["num_stages"] == 3
    assert k["grid"] == [64]


def test_resources_from_ptxas(scale_rows):
    (k,) = scale_rows["kernels"]
    res = k["resources"]
    assert isinstance(res["registers"], int) and res["registers"] > 0
    assert res["spill_stores"] == 0 and res["spill_loads"] == 0
    assert res["shared"] == k["metadata"]["shared"]


def test_set_divisibility_vectorizes_the_loads(scale_rows, tmp_path):
    (base,) = scale_rows["kernels"]
    before = _global_access(base["artifacts"]["ptx"])
    # as launched: the unknown row stride leaves the x loads scalar
    assert any(re.search(r"ld\.global\.b16", ln) for ln in before)
    r = harness("capture", "--task", task("scale_rows.py"), "--out", str(tmp_path),
                "--set-divisibility", "scale_rows:stride_row").json
    assert r["ok"] is True, r.get("error")
    assert r["counterfactual"] == {"set_divisibility": ["scale_rows:stride_row"]}
    (k,) = r["kernels"]
    assert "stride_row" in k["divisibility_16"]
    assert "stride_row" not in k["as_launched"]["divisibility_16"]
    after = _global_access(k["artifacts"]["ptx"])
    assert not any(re.search(r"ld\.global\.b16", ln) for ln in after)
    assert sum("ld.global.v4" in ln for ln in after) >= 2
    assert any("st.global.v4" in ln for ln in after)


def test_num_warps_and_constexpr_overrides(tmp_path):
    r = harness("capture", "--task", task("scale_rows.py"), "--out", str(tmp_path), "--shape", "4,100",
                "--num-warps", "8", "--constexpr", "BLOCK=256", "--no-ptxas").json
    assert r["ok"] is True, r.get("error")
    (k,) = r["kernels"]
    assert k["num_warps"] == 8
    assert k["constexprs"]["BLOCK"] == 256
    assert k["as_launched"]["constexprs"]["BLOCK"] == 128
    # n_cols = 100 is not a multiple of 16
    assert "n_cols" not in k["divisibility_16"]
    with open(k["artifacts"]["ttgir"]) as f:
        assert '"ttg.num-warps" = 8' in f.read()


def test_override_errors_are_usage_errors(tmp_path):
    r = harness("capture", "--task", task("scale_rows.py"), "--out", str(tmp_path),
                "--set-divisibility", "scale_rows:stride_col").json
    assert r["ok"] is False and r["error_kind"] == "usage" and "constant" in r["error"]
    r = harness("capture", "--task", task("scale_rows.py"), "--out", str(tmp_path),
                "--set-divisibility", "nosuch:x").json
    assert r["ok"] is False and r["error_kind"] == "usage"


def test_autotune_heuristics_and_alignment_opt_out(tmp_path):
    r = harness("capture", "--task", task("tuned_add.py"), "--out", str(tmp_path), "--no-ptxas").json
    assert r["ok"] is True, r.get("error")
    (k,) = r["kernels"]
    assert k["autotune_config"]["index"] == 0 and k["autotune_config"]["count"] == 2
    assert k["constexprs"] == {"BLOCK": 256, "EVEN": True}
    assert k["num_warps"] == 8 and k["num_stages"] == 2
    assert k["grid"] == [16]
    # z_ptr is aligned but in do_not_specialize_on_alignment
    assert k["divisibility_16"] == ["x_ptr", "y_ptr", "n"]
    assert _args(k)["z_ptr"]["value"]["data_ptr_mod16"] == 0
    r = harness("capture", "--task", task("tuned_add.py"), "--out", str(tmp_path), "--no-ptxas",
                "--config", "1", "--shape", "1000").json
    (k,) = r["kernels"]
    assert k["constexprs"] == {"BLOCK": 128, "EVEN": False}
    assert k["num_warps"] == 4


def test_remarks_with_file_line_col(tmp_path):
    r = harness("capture", "--task", task("small_dot.py"), "--out", str(tmp_path), "--remarks",
                "--no-ptxas").json
    assert r["ok"] is True, r.get("error")
    (k,) = r["kernels"]
    rem = [x for x in k["remarks"] if x["kind"] == "remark"]
    assert rem, k.get("remarks_text")
    assert rem[0]["file"].endswith("small_dot.py") and rem[0]["line"] == 21 and rem[0]["col"] > 0
    assert "MMA version 3" in rem[0]["message"]


def test_kernelbench_capture(tmp_path):
    r = harness("capture", "--task", task("kb_scale.py"), "--out", str(tmp_path), "--no-ptxas").json
    assert r["ok"] is True, r.get("error")
    assert r["kind"] == "kernelbench"
    assert [k["name"] for k in r["kernels"]] == ["scale_relu_kernel"]


def test_launch_that_needs_kernel_results_is_reported(tmp_path):
    r = harness("capture", "--task", task("task_raises.py"), "--out", str(tmp_path)).json
    assert r["ok"] is False and r["error_kind"] == "task_error"
    assert "planted failure" in r["error"]


def test_parse_ptxas_log():
    log = ("ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
           "ptxas info    : Function properties for k\n"
           "    48 bytes stack frame, 40 bytes spill stores, 36 bytes spill loads\n"
           "ptxas info    : Used 255 registers, used 1 barriers, 128 bytes smem\n")
    assert parse_ptxas_log(log) == {"registers": 255, "spill_stores": 40, "spill_loads": 36,
                                    "stack_frame": 48, "smem_static": 128}
    assert parse_ptxas_log("")["registers"] is None


def test_parse_remarks():
    text = ("/t/k.py:8:24: remark: Warning: vectorization fails vec = 1 origin vec = 1\n"
            "    x = tl.load(p)\n        ^\n"
            "/t/k.py:8:24: remark: Warning: vectorization fails vec = 1 origin vec = 1\n"
            "/t/k.py:9:3: note: see current operation\n")
    assert parse_remarks(text) == [
        {"file": "/t/k.py", "line": 8, "col": 24, "kind": "remark",
         "message": "Warning: vectorization fails vec = 1 origin vec = 1"},
        {"file": "/t/k.py", "line": 9, "col": 3, "kind": "note", "message": "see current operation"},
    ]


def test_a_kernel_that_does_not_compile_is_one_line_at_its_place(tmp_path):
    """Triton's multi-line excerpt becomes the error, the file's line and
    column, and that line of source."""
    src = open(task("add.py")).read().replace("x + y, mask=mask)", "x + undefined_name, mask=mask)")
    bad = tmp_path / "bad_add.py"
    bad.write_text(src)
    line = src.splitlines().index("    tl.store(z_ptr + offs, x + undefined_name, mask=mask)") + 1
    r = harness("capture", "--mode", "aot", "--task", str(bad), "--out", str(tmp_path / "cap")).json
    assert r["ok"] is False
    err = r["error"]
    assert "\n" not in err
    assert err.startswith("add_kernel does not compile: CompilationError: "), err
    assert f"NameError('undefined_name is not defined') at {bad}:{line}:" in err, err
    assert err.endswith(": `tl.store(z_ptr + offs, x + undefined_name, mask=mask)`"), err
    assert "def add_kernel" not in err  # not the whole kernel

