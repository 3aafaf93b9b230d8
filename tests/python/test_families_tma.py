"""tensor-descriptors: a tl.dot loop's operand tiles through TMA tensor
descriptors in a copy of the kernel, the pointer kernel kept for inputs TMA
cannot read. What it makes of the bench matmuls (checked in Triton's
interpreter, which runs descriptor loads on the CPU), which path each check
shape takes, and the kernels it must leave alone."""
import importlib.util
import subprocess
from pathlib import Path

import pytest
import torch

from conftest import CLI, harness, rewrite_family
from tritondx_harness.check import check_task

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "bench" / "tasks"


def rewrite(family, task, out_dir):
    return rewrite_family(family, task, out_dir)


def triage_ids(task):
    r = subprocess.run([CLI, "triage", str(task)], capture_output=True, text=True, timeout=60)
    return r.stdout


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def paths_taken(mod):
    """For each check shape, (TMA took every operand, the transposed flags), running launch on the CPU."""
    got = []
    real = mod._tdx_descriptor

    def spy(*a, **kw):
        d = real(*a, **kw)
        got.append(d)
        return d
    mod._tdx_descriptor = spy
    out = []
    for shape in mod.SHAPES["check"]:
        del got[:]
        ins = mod.make_inputs(shape, device="cpu", seed=0)
        res = mod.launch(*ins)
        err = (res.double() - mod.reference(*ins).double()).abs().max().item()
        out.append((all(d is not None for d in got), tuple(d[1] for d in got if d is not None), err))
    return out


def test_fp16_matmul_takes_tma_where_aligned(tmp_path, monkeypatch):
    """The bench fp16 matmul: one candidate with a descriptor copy of the
    kernel; the aligned check shapes run through it, K = 65 (a 130-byte row)
    and the misaligned shape through the pointer kernel; the check passes;
    neither the family nor the rule applies to the candidate again."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    (cand, summary), = rewrite("tensor-descriptors", TASKS / "matmul_fp16_square.py", tmp_path / "a")
    text = Path(cand).read_text()
    assert "def matmul_kernel_tma(" in text and "def _tdx_descriptor(" in text
    assert text.count("_tdx_desc0.load([(pid_m * BLOCK_M), k])") == 1, text
    assert text.count("matmul_kernel[grid](") == 1 and text.count("matmul_kernel_tma[(triton.cdiv(M, 64), triton.cdiv(N, 64))](") == 1
    assert "matmul_kernel_tma" in summary
    paths = paths_taken(load(cand, "tma_fp16"))
    assert [p[0] for p in paths] == [True, False, True, False], paths
    assert not any(f for p in paths for f in p[1])  # row-major operands: no transposed view
    assert all(p[2] < 0.05 for p in paths), paths
    res = check_task(str(TASKS / "matmul_fp16_square.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")
    assert rewrite("tensor-descriptors", cand, tmp_path / "b") == []
    assert "TDX025" in triage_ids(TASKS / "matmul_fp16_square.py")
    assert "TDX025" not in triage_ids(cand)


def test_k_major_operand_loads_the_transposed_view(tmp_path, monkeypatch):
    """fp32 after operand-layout: b is K-major (strides (1, K)), so its
    descriptor is of the transposed view and the copy loads `.T` of it."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    (lay, _), = rewrite("operand-layout", TASKS / "matmul_fp32_square.py", tmp_path / "a")
    (cand, _), = rewrite("tensor-descriptors", lay, tmp_path / "b")
    paths = paths_taken(load(cand, "tma_fp32"))
    assert paths[0][:2] == (True, (False, True)) and paths[2][:2] == (True, (False, True)), paths
    res = check_task(str(TASKS / "matmul_fp32_square.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")


def test_k_major_copy_after_the_descriptors_serves_both_launches(tmp_path, monkeypatch):
    """fp32 with tensor-descriptors first: the launches sit under `if _tdx_d0
    and _tdx_d1:`, so operand-layout copies b once before its first use in
    launch other than its shape (before the descriptors are made of it, after
    `_, N = b.shape`, where triage still reads N at the bench shape: the grid
    order finding stays): the same paths as the other order, and the check
    passes."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    (tma, _), = rewrite("tensor-descriptors", TASKS / "matmul_fp32_square.py", tmp_path / "a")
    (cand, summary), = rewrite("operand-layout", tma, tmp_path / "b")
    text = Path(cand).read_text()
    body = text[text.index("def launch(a, b):"):]
    copy = "    b = b.movedim(0, -1).contiguous().movedim(-1, 0)\n"
    assert body.count(copy) == 1, body
    assert body.index("_, N = b.shape") < body.index(copy) < body.index("_tdx_descriptor(b"), body
    assert "TDX028" in triage_ids(cand) and "TDX019" not in triage_ids(cand)
    paths = paths_taken(load(cand, "tma_fp32_after"))
    assert paths[0][:2] == (True, (False, True)) and paths[2][:2] == (True, (False, True)), paths
    res = check_task(str(TASKS / "matmul_fp32_square.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")


def test_k_major_copy_stays_out_where_launch_binds_the_tensor_again(tmp_path):
    """The same with `b` bound again in launch before the descriptors (or by a
    loop): a copy placed above it would be overwritten or come before it, so
    operand-layout leaves the file alone."""
    (tma, _), = rewrite("tensor-descriptors", TASKS / "matmul_fp32_square.py", tmp_path / "a")
    text = Path(tma).read_text()
    for i, (old, new) in enumerate((("    M, K = a.shape\n", "    M, K = a.shape\n    b = b.float()\n"),
                                    ("def launch(a, b):\n", "def launch(a, bs):\n    for b in bs[:1]:\n        pass\n"))):
        assert text.count(old) == 1
        bound = tmp_path / f"bound{i}.py"
        bound.write_text(text.replace(old, new))
        assert rewrite("operand-layout", bound, tmp_path / f"b{i}") == []


def test_bias_relu_epilogue_stays(tmp_path):
    (cand, _), = rewrite("tensor-descriptors", TASKS / "matmul_bias_relu_fp16.py", tmp_path / "a")
    text = Path(cand).read_text()
    tma = text[text.index("def matmul_bias_relu_kernel_tma("):text.index("def _tdx_descriptor(")]
    assert "tl.load(bias_ptr + rn" in tma and "tl.maximum(acc + bias[None, :], 0.0)" in tma
    res = check_task(str(TASKS / "matmul_bias_relu_fp16.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")


KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
{prelude}        a = tl.load({a_ptr}, mask={a_mask}, other={a_other})
        b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn, mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    mm[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                  b.stride(1), c.stride(0), c.stride(1), BM=64, BN=64, BK=32)
    return c
"""
A_PTR = "a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak"
A_MASK = "(rm[:, None] < M) & ((k + rk)[None, :] < K)"


def kernel(prelude="", a_ptr=A_PTR, a_mask=A_MASK, a_other="0.0"):
    return KERNEL.format(prelude=prelude, a_ptr=a_ptr, a_mask=a_mask, a_other=a_other)


@pytest.mark.parametrize("src", [
    kernel(a_other="1.0"),                                                       # padding is not zero
    kernel(a_mask="(rm[:, None] < M) & ((k + rk)[None, :] < K) & (rm[:, None] >= 0)"),  # a third bound
    kernel(a_mask="(rm[:, None] < M)"),                                          # no bound on K
    kernel(a_ptr="a_ptr + rm[:, None] * sam + (k + rk + 1)[None, :] * sak"),     # mask and address disagree
    kernel(a_ptr="a_ptr + rm[:, None] * sam + (k + rk)[None, :] * sak + 1"),     # an extra term
    kernel(a_ptr="a_ptr + (rm * 2)[:, None] * sam + (k + rk)[None, :] * sak"),    # a scaled index
    kernel(prelude="        a_ptr += 0\n"),                                       # the base moves
], ids=["other-1", "third-bound", "one-bound", "offset-mismatch", "extra-term", "scaled-index",
        "moving-base"])
def test_leaves_kernel_alone(src, tmp_path):
    task = tmp_path / "k.py"
    task.write_text(src)
    assert rewrite("tensor-descriptors", task, tmp_path / "out") == [], src


def test_base_kernel_is_rewritten(tmp_path):
    """The kernel the cases above vary, as it is: rewritten (so each case
    above is left alone for its one change)."""
    task = tmp_path / "k.py"
    task.write_text(kernel())
    assert len(rewrite("tensor-descriptors", task, tmp_path / "out")) == 1


def test_descriptor_helper_refuses_what_tma_cannot_read(tmp_path):
    """The helper the candidate carries: misaligned base, row stride not a
    multiple of 16 bytes, no unit stride, rows contiguous (transposed view)."""
    (cand, _), = rewrite("tensor-descriptors", TASKS / "matmul_fp16_square.py", tmp_path)
    mod = load(cand, "tma_helper")
    x = torch.zeros(64, 64, dtype=torch.float16)
    desc = mod._tdx_descriptor
    assert desc(x, (64, 64), x.stride(), BM=32, BK=32)[1] is False
    assert desc(x[:, 1:], (64, 63), x[:, 1:].stride(), BM=32, BK=32) is None     # base 2 bytes in
    y = torch.zeros(64, 65, dtype=torch.float16)
    assert desc(y, (64, 65), y.stride(), BM=32, BK=32) is None                   # 130-byte rows
    z = x[:, ::2]
    assert desc(z, (64, 32), z.stride(), BM=32, BK=32) is None                   # stride 2, 128
    t = x.t()
    d = desc(t, (64, 64), t.stride(), BK=32, BN=16)                               # rows, columns: the order given
    assert d[1] is True and list(d[0].shape) == [64, 64] and list(d[0].block_shape) == [16, 32]
    assert desc(x, (64, 64), x.stride(), BM=32, BK=4) is None                    # 8-byte box rows


def test_retune_of_the_copy_moves_its_descriptor_blocks(tmp_path):
    """retune on the candidate: a tile change at the descriptor launch changes
    the descriptors' blocks with it (they are named by the constexprs), so
    the retuned copy still compiles and passes (a literal block left behind
    failed to compile on the H200: the load's shape against the block's)."""
    (cand, _), = rewrite("tensor-descriptors", TASKS / "matmul_fp16_square.py", tmp_path / "a")
    tuned = [(c, s) for c, s in rewrite("retune", cand, tmp_path / "b") if s.startswith("matmul_kernel_tma:")]
    assert tuned
    c, s = tuned[0]
    text = Path(c).read_text()
    launch = text[text.index("matmul_kernel_tma["):]
    for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K"):
        v = launch.split(name + "=")[1].split(",")[0]
        assert text.count(f"{name}={v})") + text.count(f"{name}={v},") >= 2, (name, v, text)
    res = check_task(str(TASKS / "matmul_fp16_square.py"), device="cpu", seeds=(0,), candidate=c)
    assert res["ok"], res.get("error")


def test_the_pointer_kernel_beside_a_copy_is_not_tuned(tmp_path):
    """retune, grouped-order and autotune leave the pointer kernel's launch
    alone once a descriptor copy runs in its place on the timed inputs (its
    retunes timed the copy again, 2.3x slower on the H200 through a shared
    grid); autotune leaves the copy alone too (its blocks are the descriptors',
    built before a config is chosen)."""
    (cand, _), = rewrite("tensor-descriptors", TASKS / "matmul_fp16_square.py", tmp_path / "a")
    for fam in ("retune", "grouped-order"):
        got = rewrite(fam, cand, tmp_path / fam)
        assert got and all(s.startswith("matmul_kernel_tma:") for _, s in got), (fam, got)
    assert rewrite("autotune", cand, tmp_path / "at") == []
    assert rewrite("autotune", TASKS / "matmul_fp16_square.py", tmp_path / "at0") != []


def test_grouped_order_follows_the_descriptor_copy(tmp_path):
    """TDX028 (tiles in grid order) names the square matmul's launch, then its
    descriptor copy's launch once tensor-descriptors ran (the pointer kernel
    beside the copy is left alone), and is gone after grouped-order reorders
    the copy's programs; the reordered copy passes the task's check."""
    assert "TDX028" in triage_ids(TASKS / "matmul_fp16_square.py")
    assert "TDX028" not in triage_ids(TASKS / "matmul_fp16_tall_skinny.py")
    (cand, _), = rewrite("tensor-descriptors", TASKS / "matmul_fp16_square.py", tmp_path / "a")
    assert triage_ids(cand).count("TDX028") == 1
    (grouped, summary), = rewrite("grouped-order", cand, tmp_path / "g")
    assert summary.startswith("matmul_kernel_tma:"), summary
    assert "TDX028" not in triage_ids(grouped)
    res = check_task(str(TASKS / "matmul_fp16_square.py"), device="cpu", seeds=(0,), candidate=grouped)
    assert res["ok"], res.get("error")


def test_rule_leaves_out_a_tile_longer_than_its_tensor():
    """small_m's A has 16 rows at the bench shape under BLOCK_M = 64: the
    descriptor copy was slower there on the H200 and took retune's slot; the
    rule leaves it to split-k. tall_skinny's N = 64 fills its BLOCK_N."""
    assert "TDX025" not in triage_ids(TASKS / "matmul_fp16_small_m.py")
    assert "TDX015" in triage_ids(TASKS / "matmul_fp16_small_m.py")
    assert "TDX025" in triage_ids(TASKS / "matmul_fp16_tall_skinny.py")


def test_bmm_reads_each_batch_through_a_3d_descriptor(tmp_path, monkeypatch):
    """bmm moves its bases by `batch * stride`: the copy reads the box [1, rows,
    columns] of a 3-D descriptor at [batch, R, C] (rows past M within a batch read
    as zeros, not the next batch's); B's 100-byte rows at (3, 33, 40, 50) and the
    misaligned shape take the pointer kernel; AOT for sm_90 the boxes are TMA
    copies that the wgmma reads in shared memory (the reshape costs no copy)."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    (cand, _), = rewrite("tensor-descriptors", TASKS / "bmm_fp16.py", tmp_path / "a")
    text = Path(cand).read_text()
    assert "_tdx_desc0.load([batch, (pid_m * BLOCK_M), k]).reshape([BLOCK_M, BLOCK_K])" in text, text
    assert "_tdx_lead=a.stride(0), BLOCK_M=64, BLOCK_K=32)" in text and "_tdx_lead=b.stride(0)" in text
    paths = paths_taken(load(cand, "tma_bmm"))
    assert [p[0] for p in paths] == [True, False, True, False], paths
    assert all(p[2] < 0.05 for p in paths), paths
    res = check_task(str(TASKS / "bmm_fp16.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")
    assert "TDX025" in triage_ids(TASKS / "bmm_fp16.py") and "TDX025" not in triage_ids(cand)
    monkeypatch.delenv("TRITON_INTERPRET")
    cap = harness("capture", "--mode", "aot", "--task", cand, "--kernel", "bmm_kernel_tma", "--no-sass",
                  "--out", str(tmp_path / "cap")).json
    assert cap["ok"], cap.get("error")
    (k,) = cap["kernels"]
    assert k["signature"]["_tdx_desc0"] == "tensordesc<fp16[1, 64, 32]>", k["signature"]
    ttgir = Path(k["artifacts"]["ttgir"]).read_text()
    assert ttgir.count("ttng.async_tma_copy_global_to_local") >= 2
    dots = [ln for ln in ttgir.splitlines() if "ttng.warp_group_dot " in ln]
    assert dots and all(": !ttg.memdesc<64x32xf16" in ln and "* !ttg.memdesc<32x64xf16" in ln for ln in dots), dots


def test_3d_descriptor_extent_is_what_the_tensor_holds(tmp_path):
    """The helper with a lead stride: the first extent counts the whole steps x
    holds (a column slice keeps its batches); a lead stride that is not a
    multiple of 16 bytes, or more than x holds, is refused."""
    (cand, _), = rewrite("tensor-descriptors", TASKS / "bmm_fp16.py", tmp_path)
    desc = load(cand, "tma_helper3")._tdx_descriptor
    x = torch.zeros(3, 33, 40, dtype=torch.float16)
    d, flip = desc(x, (33, 40), (40, 1), _tdx_lead=x.stride(0), BM=32, BK=32)
    assert not flip and list(d.shape) == [3, 33, 40] and list(d.block_shape) == [1, 32, 32]
    assert list(d.strides) == [1320, 40, 1]
    v = x[:, :, :32]
    d, _ = desc(v, (33, 32), (40, 1), _tdx_lead=v.stride(0), BM=32, BK=32)
    assert list(d.shape) == [3, 33, 32]
    s = torch.zeros(200, dtype=torch.float16).as_strided((3, 4, 8), (36, 8, 1))
    assert desc(s, (4, 8), (8, 1), _tdx_lead=36, BM=4, BK=8) is None          # 72-byte steps
    assert desc(x[0], (33, 40), (40, 1), _tdx_lead=2000, BM=32, BK=32)[0].shape[0] == 1
    assert desc(x[0, :1], (33, 40), (40, 1), _tdx_lead=1320, BM=32, BK=32) is None  # one row: 33 do not fit


BATCHED = """import torch
import triton
import triton.language as tl


@triton.jit
def bmm(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sbb, sbk, scb, scm,
        BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    bz = tl.program_id(2)
{prelude}    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
{inloop}        a = tl.load({a_ptr}, mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + bz * sbb + (k + rk)[:, None] * sbk + rn[None, :], mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + bz * scb + rm[:, None] * scm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def launch(a, b):
    B, M, K = a.shape
    N = b.shape[2]
    c = torch.empty((B, M, N), device=a.device, dtype=torch.float32)
    bmm[(triton.cdiv(M, 32), triton.cdiv(N, 32), B)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                    b.stride(1), c.stride(0), c.stride(1), BM=32, BN=32, BK=16)
    return c


def reference(a, b):
    return torch.bmm(a.double(), b.double())


def make_inputs(shape, dtype=torch.float16, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    B, M, N, K = shape
    return (torch.randn(B, M, K, generator=g).to(dtype).to(device), torch.randn(B, K, N, generator=g).to(dtype).to(device))


SHAPES = {{"bench": (4, 64, 64, 64), "check": [(3, 40, 24, 32)]}}
"""
A_AT = "a_ptr + rm[:, None] * sam + (k + rk)[None, :]"


def batched(prelude="", inloop="", a_ptr="a_ptr + bz * sab + rm[:, None] * sam + (k + rk)[None, :]"):
    return BATCHED.format(prelude=prelude, inloop=inloop, a_ptr=a_ptr)


@pytest.mark.parametrize("src", [
    batched(),                                                          # a lead term in each address
    batched(prelude="    a_ptr = a_ptr + bz * sab\n", a_ptr=A_AT),      # A's base moved before the loop
    batched(prelude="    off = sab * bz\n    a_ptr += off\n", a_ptr=A_AT),  # through a name
], ids=["address-term", "rebound-base", "named-offset"])
def test_batched_operands_take_3d_descriptors(src, tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    task = tmp_path / "k.py"
    task.write_text(src)
    (cand, _), = rewrite("tensor-descriptors", task, tmp_path / "out")
    text = Path(cand).read_text()
    assert text.count(".reshape([BM, BK])") == 1 and text.count(".reshape([BK, BN])") == 1, text
    paths = paths_taken(load(cand, "tma_batched"))
    assert paths[0][0] is True and paths[0][2] < 0.05, paths


@pytest.mark.parametrize("src", [
    batched(inloop="        a_ptr += bz * sab\n", a_ptr=A_AT),                      # moved in the loop
    batched(prelude="    a_ptr += bz * sab\n    a_ptr += sam\n", a_ptr=A_AT),       # moved twice
    batched(prelude="    a_ptr += bz * sab\n"),                                     # two lead terms
    batched(a_ptr="a_ptr + k * sab + rm[:, None] * sam + (k + rk)[None, :]"),       # the loop's index
    batched(a_ptr="a_ptr + bz * bz + rm[:, None] * sam + (k + rk)[None, :]"),       # no stride
    batched(a_ptr="a_ptr + rk[0] * sab + rm[:, None] * sam + (k + rk)[None, :]"),   # a tl.arange
], ids=["in-loop", "twice", "two-leads", "loop-index", "no-stride", "arange"])
def test_batched_operand_left_alone(src, tmp_path):
    task = tmp_path / "k.py"
    task.write_text(src)
    assert rewrite("tensor-descriptors", task, tmp_path / "out") == [], src
