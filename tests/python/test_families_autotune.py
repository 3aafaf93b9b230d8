"""The autotune family: each candidate parses, passes the check with every
config of its list run first (the interpreter runs only the first config of
an autotuned kernel), and the launch no longer passes what the configs set.
Negative controls: a kernel already autotuned, a block size that also sizes
a buffer, and a grid left on a fixed block that the per-config check catches."""
import ast
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from tritondx_harness import check as check_mod
from tritondx_harness import intercept
from tritondx_harness.check import check_task

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rewrite"
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))


def rewrite(task, out_dir):
    r = subprocess.run([CLI, "rewrite", "--family", "autotune", "--out-dir", str(out_dir), str(task)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [line.split("\t")[0] for line in r.stdout.splitlines() if "\t" in line]


def autotune_call(text):
    """The @triton.autotune(...) decorator call of the module's kernel."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef):
            for d in node.decorator_list:
                if isinstance(d, ast.Call) and ast.unparse(d.func) == "triton.autotune":
                    return d
    return None


def configs_of(text):
    """[(kwargs dict, num_warps, num_stages)] of the autotune config list, and its key."""
    call = autotune_call(text)
    assert call is not None
    kw = {k.arg: k.value for k in call.keywords}
    out = []
    for c in kw["configs"].elts:
        assert ast.unparse(c.func) == "triton.Config"
        opts = {k.arg: ast.literal_eval(k.value) for k in c.keywords}
        out.append((ast.literal_eval(c.args[0]), opts["num_warps"], opts["num_stages"]))
    return out, ast.literal_eval(kw["key"])


def launch_call(text):
    """The kernel[grid](...) call in launch()."""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript):
            return node
    return None


def autotuner_of(path, kernel):
    """Import a candidate (no kernel runs) and return Triton's Autotuner
    wrapping `kernel`: the decorator as Triton itself reads it."""
    from triton.runtime.autotuner import Autotuner

    spec = importlib.util.spec_from_file_location(f"cand_{abs(hash(str(path)))}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    tuner = getattr(mod, kernel)
    assert isinstance(tuner, Autotuner)
    return tuner


def check_each_config(task, cand, n, monkeypatch):
    """Run the check once per config, that config chosen; the failures."""
    bad = []
    for i in range(n):
        monkeypatch.setattr(check_mod, "one_config", lambda idx=0, _i=i: intercept.one_config(_i))
        res = check_task(str(task), device="cpu", seeds=(0,), candidate=str(cand))
        if not res["ok"]:
            bad.append((i, res.get("error")))
    return bad


@pytest.mark.parametrize("task,kernel,blocks,key", [
    ("scale.py", "scale_kernel", {"BLOCK": 64}, ["n"]),
    ("matmul_ieee.py", "matmul_kernel", {"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, ["M", "N", "K"]),
])
def test_every_config_passes_the_check(task, kernel, blocks, key, tmp_path, monkeypatch):
    cands = rewrite(DATA / task, tmp_path)
    assert len(cands) == 2  # a wide and a small config list
    sizes, lists = [], []
    for cand in cands:
        text = Path(cand).read_text()
        cfgs, k = configs_of(text)
        sizes.append(len(cfgs))
        lists.append({repr(c) for c in cfgs})
        assert k == key
        assert cfgs[0][0] == blocks and cfgs[0][1:] == (4, 3)  # the launch's own values first
        assert len({repr(c) for c in cfgs}) == len(cfgs) >= 4
        assert all(set(c[0]) == set(blocks) for c in cfgs)
        call = launch_call(text)
        assert not {kw.arg for kw in call.keywords} & (set(blocks) | {"num_warps", "num_stages"})
        assert "lambda META:" in text and "META['BLOCK" in text
        tuner = autotuner_of(cand, kernel)
        assert tuner.keys == key and set(key) <= set(tuner.arg_names)
        assert [(c.kwargs, c.num_warps, c.num_stages) for c in tuner.configs] == cfgs
        assert all(set(c.kwargs) <= set(tuner.arg_names) for c in tuner.configs)
        assert check_each_config(DATA / task, cand, len(cfgs), monkeypatch) == []
    assert sizes[0] > sizes[1] and lists[1] <= lists[0]  # the wide list, a superset, first


def test_loop_kernel_tries_stages(tmp_path):
    text = Path(rewrite(DATA / "rowsum_loop.py", tmp_path)[0]).read_text()
    cfgs, key = configs_of(text)
    assert key == ["n_cols"]
    assert {c[2] for c in cfgs} == {2, 3, 4}
    assert "rowsum_kernel[(x.shape[0],)](x, y, x.shape[1], x.stride(0))" in text  # grid has no block


def test_a_grid_on_a_fixed_block_is_caught_by_some_config(tmp_path, monkeypatch):
    """The negative control for the per-config check: a grid that keeps the
    launch's block (64) covers the vector only for configs with BLOCK >= 64;
    the config with BLOCK=32 must fail."""
    cand = Path(rewrite(DATA / "scale.py", tmp_path)[0])
    bad = tmp_path / "bad.py"
    text = cand.read_text()
    assert "META['BLOCK']" in text
    bad.write_text(text.replace("META['BLOCK']", "64"))
    cfgs, _ = configs_of(bad.read_text())
    failed = [i for i, _ in check_each_config(DATA / "scale.py", bad, len(cfgs), monkeypatch)]
    assert failed and all(cfgs[i][0]["BLOCK"] < 64 for i in failed)
    assert 0 not in failed


def test_refuses_a_kernel_already_autotuned(tmp_path):
    task = DATA / "scale_autotuned.py"
    assert rewrite(task, tmp_path / "a") == []
    # without its decorator the same launch is rewritten: the refusal is the decorator's
    plain = tmp_path / "plain.py"
    plain.write_text("".join(line for line in task.read_text().splitlines(keepends=True)
                             if not line.startswith("@triton.autotune")))
    assert len(rewrite(plain, tmp_path / "b")) == 2


def test_refuses_a_block_that_also_sizes_a_buffer(tmp_path, monkeypatch):
    task = DATA / "block_partials.py"
    assert check_task(str(task), device="cpu", seeds=(0,))["ok"]
    assert rewrite(task, tmp_path / "a") == []
    # the literal form is refused too
    lit = tmp_path / "lit.py"
    lit.write_text(task.read_text().replace("    BLOCK = 256\n", "").replace("BLOCK)", "256)")
                   .replace("BLOCK=BLOCK", "BLOCK=256"))
    assert "256" in lit.read_text() and rewrite(lit, tmp_path / "b") == []
    # with a buffer sized without the block, the grid's variable reads META
    free = tmp_path / "free.py"
    free.write_text(task.read_text()
                    .replace("    nblocks = triton.cdiv(n, BLOCK)\n", "")
                    .replace("torch.empty(nblocks,", "torch.zeros(n,")
                    .replace("[(nblocks,)]", "[(triton.cdiv(n, BLOCK),)]"))
    cands = rewrite(free, tmp_path / "c")
    assert len(cands) == 2
    text = Path(cands[0]).read_text()
    assert "[lambda META: (triton.cdiv(n, META['BLOCK']),)](x, partials, n)" in text
    cfgs, key = configs_of(text)
    assert key == ["n"]
    assert check_each_config(free, cands[0], len(cfgs), monkeypatch) == []


def test_refuses_a_kernel_that_rewrites_its_input(tmp_path):
    """The Autotuner runs the kernel once per config: an in-place update would
    compound, so a kernel that stores where it loads is left alone."""
    src = (DATA / "scale.py").read_text()
    assert len(rewrite(DATA / "scale.py", tmp_path / "a")) == 2
    inplace = tmp_path / "inplace.py"
    inplace.write_text(src.replace("tl.store(y_ptr", "tl.store(x_ptr"))
    assert "tl.store(x_ptr" in inplace.read_text() and rewrite(inplace, tmp_path / "b") == []
    by_keyword = tmp_path / "by_keyword.py"
    by_keyword.write_text(src.replace("tl.store(y_ptr + offs, x * 2.0,",
                                      "tl.store(pointer=x_ptr + offs, value=x * 2.0,"))
    assert "tl.store(pointer=x_ptr" in by_keyword.read_text() and rewrite(by_keyword, tmp_path / "d") == []
    aliased = tmp_path / "aliased.py"
    aliased.write_text(src.replace("](x, y, n, BLOCK=64)", "](x, x, n, BLOCK=64)"))
    assert "](x, x, n" in aliased.read_text() and rewrite(aliased, tmp_path / "c") == []


def test_each_of_two_launches_is_tuned_alone(tmp_path, monkeypatch):
    """Two kernels launched with the same literal block: each candidate tunes
    one launch; the other keeps its literal grid and block."""
    task = DATA / "bias_then_gelu.py"
    cands = rewrite(task, tmp_path)
    assert len(cands) == 4
    for cand, tuned, kept in ((cands[0], "bias_kernel", "gelu_kernel[(triton.cdiv(n, 512),)](h, y, n, BLOCK=512)"),
                              (cands[2], "gelu_kernel", "bias_kernel[(triton.cdiv(n, 512),)](x, bias, h, n, x.shape[1], BLOCK=512)")):
        text = Path(cand).read_text()
        assert kept in text
        assert f"{tuned}[lambda META: (triton.cdiv(n, META['BLOCK']),)]" in text
        cfgs, _ = configs_of(text)
        assert check_each_config(task, cand, len(cfgs), monkeypatch) == []
