"""The AOT specialization, argument by argument, against the rules Triton
3.6's JIT applies (runtime/jit.py, backends/compiler.py): checked without
compiling, in process."""
import os
import subprocess
import sys

import torch

from conftest import PYDIR, task
from tritondx_harness.compile import kernel_specs_from_launches, target_for
from tritondx_harness.intercept import Launch, record_launches
from tritondx_harness.taskload import interpreter, load_task


HERE = os.path.dirname(os.path.abspath(__file__))


def _spec(t, args, kwargs):
    (s,) = kernel_specs_from_launches([Launch(t, args, kwargs, (1,))], target_for("aot"))
    return s


def _div(s):
    names = s.fn.arg_names
    return sorted(names[k[0]] for k, v in s.attrs.items() if ["tt.divisibility", 16] in v)


def test_rules():
    with interpreter(False):
        mod = load_task(task("scale_rows.py")).module
    k = mod.scale_rows
    base = torch.zeros(64, 64, dtype=torch.float16)
    w = torch.zeros(64, dtype=torch.float16)
    # aligned pointers, n % 16 == 0, stride_row in do_not_specialize, stride_col == 1
    s = _spec(k, (base, w, base, 64, 64, 1), {"BLOCK": 64})
    assert _div(s) == ["n_cols", "w_ptr", "x_ptr", "y_ptr"]
    assert s.signature["stride_col"] == "constexpr" and s.constexprs[(5,)] == 1
    # a view one element in is 2 bytes off: no divisibility for that pointer
    view = base.view(-1)[1:].view(63, 65)[:, :64]
    assert view.data_ptr() % 16 == 2
    s = _spec(k, (view, w, base, 48, 65, 1), {"BLOCK": 64})
    assert _div(s) == ["n_cols", "w_ptr", "y_ptr"]
    # ints not multiple of 16 get nothing; an int 1 under do_not_specialize stays an int
    s = _spec(k, (base, w, base, 50, 1, 2), {"BLOCK": 64})
    assert "n_cols" not in _div(s)
    assert s.signature["stride_row"] == "i32" and s.signature["stride_col"] == "i32"
    assert s.options.num_warps == 4


def test_identical_launches_are_one_compile():
    with interpreter(False):
        mod = load_task(task("add.py")).module
    x = torch.zeros(256)
    with record_launches() as launches:
        mod.launch(x, x)
        mod.launch(x, x)
    assert len(launches) == 2
    (s,) = kernel_specs_from_launches(launches, target_for("aot"))
    assert s.launch_count == 2


def test_jit_listener_path_rebuilds_the_same_spec():
    """--mode jit builds specs from knobs.compilation.listener; an AOT compile fires the same
    listener, so the plumbing is checked here without a GPU. In a fresh interpreter: a compile
    in this process once failed after the other harness tests ('ir.value' has no attribute
    'dtype'), with triton.language left patched by Triton's interpreter."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env.pop("TRITON_INTERPRET", None)
    env["PYTHONPATH"] = os.pathsep.join([PYDIR, HERE, env.get("PYTHONPATH", "")])
    r = subprocess.run([sys.executable, "-c", "import test_specialization as t; t.jit_listener_check(); print('ok')"],
                       capture_output=True, text=True, timeout=300, env=env, cwd=HERE)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stderr[-3000:]


def jit_listener_check():
    import triton
    from triton.compiler import ASTSource

    from tritondx_harness.compile import kernel_specs_from_jit

    with interpreter(False):
        mod = load_task(task("scale_rows.py")).module
    base = torch.zeros(64, 64, dtype=torch.float16)
    w = torch.zeros(64, dtype=torch.float16)
    aot = _spec(mod.scale_rows, (base, w, base, 64, 64, 1), {"BLOCK": 64, "num_warps": 2})
    tgt = target_for("aot")

    def run():
        triton.compile(ASTSource(aot.fn, aot.signature, aot.constexprs, aot.attrs), target=tgt,
                       options=aot.options.__dict__)

    (jit,) = kernel_specs_from_jit(run, target=tgt)
    assert jit.fn is aot.fn
    assert jit.signature == aot.signature
    assert jit.constexprs == aot.constexprs
    assert jit.attrs == aot.attrs
    assert jit.options.num_warps == 2 and jit.options.num_stages == aot.options.num_stages


def test_autotune_config_matching():
    import triton

    from tritondx_harness.compile import matches_config
    with interpreter(False):
        mod = load_task(task("tuned_add.py")).module
    x = torch.zeros(4096)
    with record_launches(1) as launches:
        mod.launch(x, x)
    (s,) = kernel_specs_from_launches(launches, target_for("aot"))
    assert matches_config(s, triton.Config({"BLOCK": 128}, num_warps=4, num_stages=3))
    assert not matches_config(s, triton.Config({"BLOCK": 256}, num_warps=8, num_stages=2))
    assert not matches_config(s, triton.Config({"BLOCK": 128}, num_warps=8, num_stages=3))
    assert not matches_config(s, triton.Config({"NOPE": 1}, num_warps=4, num_stages=3))
