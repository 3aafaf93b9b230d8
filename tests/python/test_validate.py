"""validate: each kind of problem is named, in process (no child needed)."""
import pytest

from conftest import task
from tritondx_harness import validate
from tritondx_harness.taskload import load_task


@pytest.mark.parametrize("name,code", [
    ("no_reference.py", "missing_reference"),
    ("no_check_shapes.py", "shapes_no_check"),
    ("make_inputs_positional.py", "make_inputs_keywords"),
    ("launch_not_callable.py", "launch_not_callable"),
])
def test_problem_codes(name, code):
    probs = validate.task_problems(load_task(task(name)))
    assert code in [p["code"] for p in probs]


def test_sound_tasks_have_no_problems():
    for name in ("add.py", "rowsum.py", "scale_rows.py", "kb_scale.py"):
        assert validate.task_problems(load_task(task(name))) == [], name


def test_kernelbench_kind():
    t = load_task(task("kb_scale.py"))
    assert t.kind == "kernelbench"
    assert t.kernel_names() == ["scale_relu_kernel"]
