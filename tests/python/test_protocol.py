"""The protocol: one JSON object on stdout, exit 0 once written, failures as
ok:false with a one-line error and its kind."""
import json

from conftest import harness, task


def _one_object(reply):
    text = reply.stdout.strip()
    assert text, "stdout is empty"
    assert "\n" not in text, f"more than one line on stdout: {reply.stdout!r}"
    obj = json.loads(text)
    assert isinstance(obj, dict)
    return obj


def test_stdout_is_one_json_object_even_when_the_task_prints():
    r = harness("check", "--task", task("task_prints.py"), "--shape", "256", "--seeds", "0")
    obj = _one_object(r)
    assert r.returncode == 0
    assert obj["ok"] is True and obj["verb"] == "check" and obj["protocol"] == 1
    assert "hello from import" in r.stderr and "hello from launch" in r.stderr
    assert "raw bytes on fd 1" in r.stderr


def test_validate_reports_kernels_and_kind():
    obj = _one_object(harness("validate", "--task", task("add.py")))
    assert obj["ok"] is True
    assert obj["kind"] == "task"
    assert [k["name"] for k in obj["kernels"]] == ["add_kernel"]
    assert obj["problems"] == []
    assert obj["shapes"] == {"bench": [1 << 20], "check": [[1000], [256], [1]]}
    assert obj["has_bytes"] is True and obj["has_flops"] is False and obj["tolerance"] is None


def test_a_task_that_raises_gives_ok_false_with_a_reason():
    r = harness("check", "--task", task("task_raises.py"), "--shape", "256", "--seeds", "0")
    obj = _one_object(r)
    assert r.returncode == 0
    assert obj["ok"] is False
    assert obj["error_kind"] == "incorrect" and obj["reason"] == "raised"
    assert "planted failure in launch" in obj["error"]


def test_syntax_error_names_the_line():
    obj = _one_object(harness("validate", "--task", task("syntax_error.py")))
    assert obj["ok"] is False and obj["error_kind"] == "task_load"
    assert obj["problems"][0]["code"] == "syntax_error"
    assert obj["problems"][0]["line"] == 4
    assert "syntax_error.py:4:" in obj["error"]


def test_not_a_python_file():
    obj = _one_object(harness("validate", "--task", task("not_python.txt")))
    assert obj["ok"] is False and obj["error_kind"] == "task_load"
    assert obj["problems"][0]["code"] == "not_python"


def test_task_without_reference():
    obj = _one_object(harness("validate", "--task", task("no_reference.py")))
    assert obj["ok"] is False and obj["error_kind"] == "task_invalid"
    assert [p["code"] for p in obj["problems"]] == ["missing_reference"]


def test_check_refuses_an_invalid_task():
    from tritondx_harness.__main__ import dispatch
    obj = dispatch(["check", "--task", task("no_reference.py")])
    assert obj["ok"] is False and obj["error_kind"] == "task_invalid"
    assert "reference" in obj["error"]


def test_bad_command_line_through_the_child():
    r = harness("bogus")
    obj = _one_object(r)
    assert r.returncode == 0
    assert obj["ok"] is False and obj["error_kind"] == "usage"


def test_bad_command_lines_are_usage_errors():
    from tritondx_harness.__main__ import dispatch
    for argv in (["check"], [], ["capture", "--task", "x.py", "--set-divisibility", "nocolon"],
                 ["capture", "--task", "x.py", "--num-warps", "3"], ["check", "--task", "x.py", "--seeds", ","]):
        obj = dispatch(argv)
        assert obj["ok"] is False and obj["error_kind"] == "usage", argv
        assert obj["protocol"] == 1


def test_missing_file():
    from tritondx_harness.__main__ import dispatch
    obj = dispatch(["validate", "--task", task("does_not_exist.py")])
    assert obj["ok"] is False and obj["error_kind"] == "task_load"


def test_a_task_whose_import_raises():
    from tritondx_harness.__main__ import dispatch
    obj = dispatch(["validate", "--task", task("import_raises.py")])
    assert obj["ok"] is False and obj["error_kind"] == "task_load"
    assert obj["problems"][0]["code"] == "import_error"
    assert obj["problems"][0]["line"] == 5
    assert "IndexError" in obj["error"]
