"""single-pass-reduction and split-k beyond the shared family table: the
kernels they must leave alone, what they make of the bench tasks they are
meant for, and checks that a wrong rewrite of either fails."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import rewrite_family
from tritondx_harness.check import check_task

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rewrite"
TASKS = ROOT / "bench" / "tasks"
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))


def rewrite(family, task, out_dir):
    return rewrite_family(family, task, out_dir)


@pytest.mark.parametrize("family,task", [
    ("single-pass-reduction", DATA / "rowsum_loop.py"),      # one pass already
    ("single-pass-reduction", TASKS / "softmax_short.py"),   # the row is one block already
    ("single-pass-reduction", TASKS / "row_sum.py"),
    ("single-pass-reduction", DATA / "matmul_ieee.py"),
    ("split-k", TASKS / "matmul_bias_relu_fp16.py"),         # bias and relu are not linear in K
    ("split-k", TASKS / "attention_fp16.py"),                # two dots
    ("split-k", TASKS / "bmm_fp16.py"),                      # grid axis 2 is taken
    ("split-k", DATA / "softmax.py"),
    ("single-pass-reduction", TASKS / "log_softmax_long.py"), # 50257 a row at the bench shape: over 32 K
    ("fold-programs", TASKS / "cumsum.py"),                  # a scan along the tile
    ("fold-programs", DATA / "softmax_rows_keepdims.py"),    # a reduction that keeps its dims already
    ("fold-programs", TASKS / "col_sum.py"),                 # a loop
    ("fold-programs", TASKS / "transpose.py"),               # 2-D tiles
    ("fold-programs", TASKS / "matmul_fp16_square.py"),      # a dot, a 2-D grid
    ("split-reduction", TASKS / "col_argmax.py"),            # value and index: two accumulators
    ("split-reduction", TASKS / "softmax_long.py"),          # several passes
    ("split-reduction", TASKS / "matmul_fp16_small_m.py"),   # a dot: split-k's
    ("split-reduction", DATA / "col_norm_sqrt.py"),          # sqrt of a sum is not linear in it
    ("operand-layout", TASKS / "matmul_fp16_square.py"),     # 16-bit: wgmma reads either order
    ("operand-layout", DATA / "matmul_ieee.py"),             # ieee: no tensor cores
    ("operand-layout", TASKS / "bmm_fp16.py"),
    ("operand-layout", TASKS / "transpose.py"),              # no dot
    ("block-outputs", TASKS / "matmul_fp16_square.py"),      # a dot: 2-D tiles
    ("block-outputs", TASKS / "col_sum.py"),                 # a 1-D grid
    ("block-outputs", TASKS / "rope_fp16.py"),
    ("block-outputs", TASKS / "embedding_fp16.py"),
    ("defer-reduction", DATA / "rowsum_running.py"),         # the accumulator is read in the loop
    ("defer-reduction", DATA / "rowcount_int.py"),           # an integer accumulator (count = 0)
    ("defer-reduction", DATA / "rowsum_loop.py"),            # a block accumulator already
    ("defer-reduction", TASKS / "col_argmax.py"),            # the arg-max of one axis of 2-D tiles
], ids=lambda x: x if isinstance(x, str) else x.name)
def test_family_leaves_kernel_alone(family, task, tmp_path):
    assert rewrite(family, task, tmp_path) == []


def test_softmax_long_candidates(tmp_path):
    """The bench task that had only retuning: the row in one block, and the
    online max and sum with the write pass kept."""
    cands = rewrite("single-pass-reduction", TASKS / "softmax_long.py", tmp_path)
    summaries = [s for _, s in cands]
    assert any("one block" in s and "3 passes" in s for s in summaries), summaries
    assert any("online m and rescaled s" in s for s in summaries), summaries
    one = Path(cands[0][0]).read_text()
    assert one.count("tl.load(") == 1 and "for start in" not in one
    assert "BLOCK=triton.next_power_of_2(n_cols)" in one
    online = Path([p for p, s in cands if "online" in s][0]).read_text()
    assert online.count("for start in") == 2 and online.count("tl.load(") == 2


def test_moments_pass_count(tmp_path):
    cands = rewrite("single-pass-reduction", TASKS / "layernorm.py", tmp_path)
    text = Path([p for p, s in cands if "sum of squares" in s][0]).read_text()
    assert text.count("for start in") == 2
    assert "_tdx_sq += tl.sum(_tdx_v * _tdx_v, axis=0)" in text


def test_splitk_small_m_bench_task(tmp_path):
    """Each split as one kernel first (4, 2, 8 programs a tile), then with
    atomics into a zeroed fp32 buffer copied back."""
    cands = rewrite("split-k", TASKS / "matmul_fp16_small_m.py", tmp_path)
    assert [" in one kernel" in s for _, s in cands] == [True] * 3 + [False] * 3
    assert [" over 4 ", " over 2 ", " over 8 "] * 2 == [s.split("split")[1][:8] for _, s in cands]
    text = Path(cands[3][0]).read_text()
    assert "grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), 4)" in text
    assert "tl.atomic_add(" in text and "tl.store(" not in text
    assert "c.copy_(_tdx_acc)" in text


def test_splitk_as_one_kernel(tmp_path):
    """The one-kernel form: the partial tile into slab pid_k of an fp32
    workspace, the tile's counter counted after a barrier, the last program
    adding the slabs in order into the output and zeroing the counter; the
    workspace and counters follow the output pointer at the launch. It
    passes the check (several shapes and seeds in one process: the counters
    must be zero again after every launch); without the reset it fails."""
    cands = rewrite("split-k", DATA / "matmul_small_m.py", tmp_path)
    text = Path(cands[0][0]).read_text()
    assert "def matmul_kernel(a_ptr, b_ptr, c_ptr, _tdx_ws_ptr, _tdx_ws_span, _tdx_cnt_ptr, M, N, K," in text
    assert "    _tdx_part = (_tdx_ws_ptr + _tdx_pid_k * _tdx_ws_span) + rm[:, None] * scm + rn[None, :] * scn\n" \
           "    tl.store(_tdx_part, acc, mask=_tdx_mask)\n    tl.debug_barrier()\n" in text
    assert "    if tl.atomic_add(_tdx_cnt_ptr + _tdx_tile, 1) == _tdx_split_k - 1:\n" in text
    assert "_tdx_red.to(c_ptr.dtype.element_ty), mask=_tdx_mask)\n" \
           "        tl.atomic_xchg(_tdx_cnt_ptr + _tdx_tile, 0)\n" in text
    assert "    _tdx_grid = (triton.cdiv(M, 16), triton.cdiv(N, 32), 4)\n" in text
    assert "_tdx_cnt = _tdx_zeroed_counters(_tdx_grid[0] * _tdx_grid[1], c.device)" in text
    assert "matmul_kernel[_tdx_grid](\n        a, b, c, _tdx_ws, _tdx_span, _tdx_cnt, M, N, K," in text
    assert "atomic_add(c_ptr" not in text and "copy_" not in text
    res = check_task(str(DATA / "matmul_small_m.py"), device="cpu", seeds=(0, 1), candidate=cands[0][0])
    assert res["ok"], res.get("error")
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace("        tl.atomic_xchg(_tdx_cnt_ptr + _tdx_tile, 0)\n", ""))
    res = check_task(str(DATA / "matmul_small_m.py"), device="cpu", seeds=(0, 1), candidate=str(bad))
    assert not res["ok"]
    # retune on top changes the blocks and the grid; the counters follow the grid by name
    (tuned, _), *_ = rewrite("retune", cands[0][0], tmp_path / "r")
    text = Path(tuned).read_text()
    assert "_tdx_zeroed_counters(_tdx_grid[0] * _tdx_grid[1], c.device)" in text
    res = check_task(str(DATA / "matmul_small_m.py"), device="cpu", seeds=(0,), candidate=tuned)
    assert res["ok"], res.get("error")


def test_splitk_one_kernel_follows_a_pointer_name(tmp_path):
    """The tutorial's epilogue stores through `c_ptrs` and `c_mask` bound
    after the loop: the slab pointer is that binding with c_ptr moved to the
    workspace, the mask is the store's; the candidate passes the check. With
    the grid a lambda over the meta-parameters there is no one-kernel form
    (its counters are counted from the grid)."""
    given = tmp_path / "mm.py"
    text = (DATA / "matmul_fp32_ptrs.py").read_text()
    lam = 'grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]), triton.cdiv(N, META["BLOCK_SIZE_N"]))'
    assert lam in text
    given.write_text(text.replace(lam, "grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))"))
    cands = rewrite("split-k", given, tmp_path / "a")
    assert len(cands) == 6 and "in one kernel" in cands[0][1]
    out = Path(cands[0][0]).read_text()
    assert ("    _tdx_mask = c_mask\n    _tdx_part = (_tdx_ws_ptr + _tdx_pid_k * _tdx_ws_span) + "
            "stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]\n"
            "    tl.store(_tdx_part, accumulator, mask=_tdx_mask)\n") in out, out
    assert "        tl.store(c_ptrs, _tdx_red.to(c_ptr.dtype.element_ty), mask=_tdx_mask)\n" in out
    res = check_task(str(given), device="cpu", seeds=(0, 1), candidate=cands[0][0])
    assert res["ok"], res.get("error")
    lam_cands = rewrite("split-k", DATA / "matmul_fp32_ptrs.py", tmp_path / "b")
    assert len(lam_cands) == 3 and not any("one kernel" in s for _, s in lam_cands)
    # a name the pointer reads, bound again before the store: the pointer could not be rebuilt there
    ptrs = "    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]\n"
    moved = tmp_path / "moved.py"
    moved.write_text(given.read_text().replace(ptrs, ptrs + "    offs_cm = offs_cm + 0\n"))
    moved_cands = rewrite("split-k", moved, tmp_path / "c")
    assert len(moved_cands) == 3 and not any("one kernel" in s for _, s in moved_cands)


def test_check_catches_splitk_without_atomics(tmp_path):
    """Partial tiles stored instead of added lose all but one K slice."""
    cands = rewrite("split-k", DATA / "matmul_small_m.py", tmp_path)
    bad = tmp_path / "bad.py"
    text = Path(cands[0][0]).read_text()
    bad.write_text(text.replace("tl.atomic_add(", "tl.store(").replace(', sem="relaxed"', ""))
    res = check_task(str(DATA / "matmul_small_m.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]


def test_check_catches_online_sum_not_rescaled(tmp_path):
    """An online sum that is not rescaled when the maximum grows is wrong."""
    cands = rewrite("single-pass-reduction", DATA / "xent_loop.py", tmp_path)
    path = [p for p, s in cands if "online" in s][0]
    text = Path(path).read_text()
    assert "s = s * tl.exp((m - _tdx_mn)) + " in text
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace("s = s * tl.exp((m - _tdx_mn)) + ", "s = s + "))
    res = check_task(str(DATA / "xent_loop.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]


def test_split_reduction_combines_by_the_update(tmp_path):
    """A sum goes through atomic_add (a scale of it too: the mean), a maximum
    through atomic_max into a buffer filled with -inf; the loop takes every
    SPLIT-th step from its own offset."""
    mean = rewrite("split-reduction", TASKS / "col_mean_bf16.py", tmp_path / "a")
    # 256 programs at the bench shape: 16-way fills every SM with 16 programs
    assert len(mean) == 6 and "split over 16 programs" in mean[0][1]
    assert [" in one kernel" in s for _, s in mean] == [False] * 3 + [True] * 3
    assert "split over 64 programs" in mean[1][1] and "split over 8 programs" in mean[2][1]
    text = Path(mean[0][0]).read_text()
    assert "for r in range(_tdx_pid_k, n_rows, _tdx_split_k):" in text
    assert "tl.atomic_add(y_ptr + cols, (acc / n_rows), mask=mask, sem=\"relaxed\")" in text
    assert ("_tdx_acc = y.zero_() if y.dtype == torch.float32 else torch.zeros_like(y, dtype=torch.float32)"
            in text)
    assert "[(triton.cdiv(n_cols, 64), 1, 16)](x, _tdx_acc," in text and "y.copy_(_tdx_acc)" in text
    mx = rewrite("split-reduction", TASKS / "col_max_fp16.py", tmp_path / "b")
    text = Path(mx[1][0]).read_text()
    assert "range(_tdx_pid_k * BLOCK_M, n_rows, BLOCK_M * _tdx_split_k)" in text
    assert "tl.atomic_max(y_ptr + cols, acc, mask=cols < n_cols, sem=\"relaxed\")" in text
    assert "torch.full_like(y, float(\"-inf\"), dtype=torch.float32)" in text
    assert ", 1, 32)]" in text
    res = check_task(str(TASKS / "col_max_fp16.py"), device="cpu", seeds=(0, 1), candidate=mx[1][0])
    assert res["ok"], res.get("error")
    # as one kernel: the last program takes the maximum of the slabs
    text = Path(mx[4][0]).read_text()
    assert "_tdx_red = tl.maximum(_tdx_red, tl.load(_tdx_slab + _tdx_s * _tdx_ws_span, mask=_tdx_mask" in text
    assert "_tdx_tile = tl.program_id(0)\n" in text and "_tdx_grid = (triton.cdiv(n_cols, 32), 1, 32)" in text
    res = check_task(str(TASKS / "col_max_fp16.py"), device="cpu", seeds=(0, 1), candidate=mx[4][0])
    assert res["ok"], res.get("error")


def test_split_reduction_accumulates_in_a_fresh_fp32_output(tmp_path):
    """col_sum's fp32 output, made by torch.empty in the launch, is its own
    accumulator (zeroed; no buffer apart, no copy); the same candidate on an
    fp16 input still goes through an fp32 buffer and the copy; an output the
    caller passes in could share an input's memory and keeps the buffer."""
    (path, _), *_ = rewrite("split-reduction", TASKS / "col_sum.py", tmp_path / "a")
    text = Path(path).read_text()
    assert ("_tdx_acc = y.zero_() if y.dtype == torch.float32 else torch.zeros_like(y, dtype=torch.float32)"
            in text)
    assert "    if _tdx_acc is not y:\n        y.copy_(_tdx_acc)\n" in text
    for dtype in (None, "float16"):
        res = check_task(str(TASKS / "col_sum.py"), device="cpu", seeds=(0,), candidate=path, dtype=dtype)
        assert res["ok"], (dtype, res.get("error"))
    given = tmp_path / "given.py"
    given.write_text((TASKS / "col_sum.py").read_text()
                     .replace("def launch(x):", "def launch(x, y=None):")
                     .replace("    y = torch.empty(n_cols, dtype=x.dtype, device=x.device)\n",
                              "    y = torch.empty(n_cols, dtype=x.dtype, device=x.device) if y is None else y\n"))
    (path, _), *_ = rewrite("split-reduction", given, tmp_path / "b")
    text = Path(path).read_text()
    assert "_tdx_acc = torch.zeros_like(y, dtype=torch.float32)\n" in text and "zero_()" not in text


def test_fold_programs_keeps_masks_and_masks_the_rest(tmp_path):
    """The row's own mask is joined with the folded rows' (pid < _tdx_np), an
    unmasked access gets the latter, and the launch runs cdiv(G, R) programs."""
    cands = rewrite("fold-programs", DATA / "rows_masked_tiny.py", tmp_path)
    assert [s.split(":")[1].strip().split()[0] for _, s in cands] == ["64", "16", "32"]
    text = Path(cands[0][0]).read_text()
    assert "row = tl.program_id(0) * _TDX_R + tl.arange(0, _TDX_R)[:, None]" in text
    assert "_tdx_live = row < _tdx_np" in text
    assert "mask=(mask) & _tdx_live, other=0.0)" in text
    assert "[(triton.cdiv(n_rows, 64),)](x, y, n_cols, BLOCK=triton.next_power_of_2(n_cols), " \
           "_tdx_np=n_rows, _TDX_R=64)" in text
    assert "BLOCK: tl.constexpr, _tdx_np, _TDX_R: tl.constexpr):" in text
    rope = rewrite("fold-programs", TASKS / "rope_fp16.py", tmp_path / "rope")
    text = Path(rope[0][0]).read_text()
    assert text.count("mask=_tdx_live") == 6
    res = check_task(str(TASKS / "rope_fp16.py"), device="cpu", seeds=(0,), candidate=rope[0][0])
    assert res["ok"], res.get("error")


def test_fold_programs_reduces_rows_along_the_new_last_axis(tmp_path):
    """Reductions of the program's row become reductions over axis 1 that keep
    it, so the [R, 1] result broadcasts as the scalar did; R follows the row
    (tiles of 4096 elements first, then 1024 and 2048). Without keep_dims the
    candidate fails."""
    cands = rewrite("fold-programs", DATA / "softmax_rows_short.py", tmp_path)
    assert [s.split(":")[1].strip().split()[0] for _, s in cands] == ["32", "8", "16"]
    text = Path(cands[0][0]).read_text()
    assert "m = tl.max(x, axis=1, keep_dims=True)" in text
    assert "e / tl.sum(e, axis=1, keep_dims=True)" in text
    assert "tl.argmax(x, 1, keep_dims=True), mask=_tdx_live)" in text
    res = check_task(str(DATA / "softmax_rows_short.py"), device="cpu", seeds=(0, 1), candidate=cands[0][0])
    assert res["ok"], res.get("error")
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace("m = tl.max(x, axis=1, keep_dims=True)", "m = tl.max(x, axis=1)"))
    res = check_task(str(DATA / "softmax_rows_short.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]
    soft = rewrite("fold-programs", TASKS / "softmax_short.py", tmp_path / "s")
    assert [s.split(":")[1].strip().split()[0] for _, s in soft] == ["16", "4", "8"]


def test_operand_layout_once(tmp_path):
    """operand-layout on the fp32 bench matmul: one copy of b, K-major, just
    before the launch; the candidate passes the check, and the family does not
    apply to its own candidate (b is re-laid out there)."""
    (cand, summary), = rewrite("operand-layout", TASKS / "matmul_fp32_square.py", tmp_path / "a")
    text = Path(cand).read_text()
    assert text.count("b = b.movedim(0, -1).contiguous().movedim(-1, 0)\n    matmul_kernel[grid]") == 1, text
    assert "b passed K-major" in summary
    res = check_task(str(TASKS / "matmul_fp32_square.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res.get("error")
    assert rewrite("operand-layout", cand, tmp_path / "b") == []


def test_block_outputs_folds_the_channel_axis(tmp_path):
    """block-outputs on the bench conv2d: the channel pid becomes a column of R
    ids, the accumulator gains the R axis, the weight load and the store are
    masked by the live programs, the grid's channel entry shrinks R times."""
    cands = rewrite("block-outputs", TASKS / "conv2d.py", tmp_path)
    assert [c[1].split(" programs")[0].split(": ")[1] for c in cands] == ["32", "16", "32", "64"]
    text = Path(cands[0][0]).read_text()
    assert "co = tl.program_id(1) * _TDX_R + tl.arange(0, _TDX_R)[:, None]" in text
    assert "acc = tl.zeros((_TDX_R, BLOCK,), dtype=tl.float32)" in text
    assert "kw, mask=_tdx_live)" in text and "mask=(mask) & _tdx_live)" in text
    assert "grid = (triton.cdiv(H * W, 128), triton.cdiv(C_out, 32), N)" in text
    assert "_TDX_R=32, num_warps=1)" in text  # 128 columns: one warp leaves each thread four
    assert "num_warps" not in Path(cands[2][0]).read_text().split("def launch")[1]
    # without the live mask the last block of channels writes past C_out: the check must fail
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace("mask=(mask) & _tdx_live)", "mask=mask)").replace(
        "triton.cdiv(C_out, 32)", "triton.cdiv(C_out, 16)"))
    res = check_task(str(TASKS / "conv2d.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]


@pytest.mark.parametrize("task,init,update,final", [
    ("row_sum.py", "_tdx_r0 = tl.zeros([BLOCK], dtype=tl.float32)", "_tdx_r0 += x",
     "acc += tl.sum(_tdx_r0, axis=0)"),
    ("row_max.py", '_tdx_r0 = tl.full([BLOCK], float("-inf"), tl.float32)', "_tdx_r0 = tl.maximum(_tdx_r0, x)",
     "m = tl.maximum(m, tl.max(_tdx_r0, axis=0))"),
    ("matvec_fp16.py", "_tdx_r0 = tl.zeros([BLOCK], dtype=tl.float32)", "_tdx_r0 += a * x",
     "acc += tl.sum(_tdx_r0, axis=0)"),
    # one axis of a 2-D tile into the column accumulator: the final reduction keeps that axis;
    # a maximum of fp16 loads widened to fp32: the lanes in the loaded type, widened once after
    ("col_max_fp16.py", 'tl.static_assert(x_ptr.dtype.element_ty.is_floating())\n    _tdx_r0 = tl.full('
     '[BLOCK_M, BLOCK_N], float("-inf"), tl.float32).to(x_ptr.dtype.element_ty)',
     "_tdx_r0 = tl.maximum(_tdx_r0, x)", "acc = tl.maximum(acc, tl.max(_tdx_r0, axis=0).to(tl.float32))"),
])
def test_defer_reduction_bench_tasks(task, init, update, final, tmp_path):
    """defer-reduction on the bench tasks it is meant for: one candidate, the
    block accumulator declared just before the loop, updated where the
    reduction was, reduced on the line after the loop's last; the family does
    not apply to its own candidate."""
    (cand, summary), = rewrite("defer-reduction", TASKS / task, tmp_path / "a")
    text = Path(cand).read_text()
    assert f"    {init}\n    for start in range(" in text, text
    assert f"\n        {update}\n    {final}\n    tl.store(" in text, text
    assert "1 reduction of each loop tile" in summary
    assert rewrite("defer-reduction", cand, tmp_path / "b") == []


@pytest.mark.parametrize("name,narrow", [
    ("colmin_bf16_widened.py", True),
    ("rowmax_int_widened.py", False),   # int32 loads, masked lanes 0: no -inf of the loaded type
])
def test_defer_reduction_keeps_widened_extremes_in_the_loaded_type(name, narrow, tmp_path):
    """A maximum or minimum of loads widened to fp32 keeps its lanes in the
    loaded type (exact) when the loads are floating-point data; an integer
    load keeps the fp32 accumulator. A narrowed kernel given an integer
    pointer stops at its static assertion instead of computing with a
    -inf that does not exist."""
    (cand, summary), = rewrite("defer-reduction", DATA / name, tmp_path / "a")
    text = Path(cand).read_text()
    assert ("in the loaded type" in summary) == narrow, summary
    assert ("x_ptr.dtype.element_ty" in text) == narrow, text
    assert ("_tdx_r0 = tl.maximum(_tdx_r0, x.to(tl.float32))" in text) == (not narrow), text
    if narrow:
        bad = tmp_path / "int.py"
        bad.write_text(text.replace("dtype=torch.bfloat16", "dtype=torch.int32").replace(
            "((torch.randn(shape, generator=g) * 100).to(dtype)", "(torch.randint(-9, 9, shape, generator=g, dtype=dtype)"))
        res = check_task(str(bad), device="cpu", seeds=(0,))
        assert not res["ok"] and "assert" in json.dumps(res).lower(), res


def test_retune_keeps_a_deferred_tile_within_64_elements_a_thread(tmp_path):
    """col_mean_bf16 as the suite keeps it (vectorize-loop, split-reduction,
    defer-reduction): its [64, BLOCK_N] fp32 accumulator is reduced after the
    loop. retune leaves out the blocks that would give a thread 128 or more of
    its elements (BLOCK_N 256 and 1024 at 4 warps were the slow candidates on
    the H200); BLOCK_N 128 (64 a thread) comes first, the warps follow."""
    src = TASKS / "col_mean_bf16.py"
    for i, fam in enumerate(("vectorize-loop", "split-reduction", "defer-reduction")):
        src = Path(rewrite(fam, src, tmp_path / str(i))[0][0])
    text = src.read_text()
    assert "tl.zeros([64, BLOCK_N], dtype=tl.float32)" in text and "BLOCK_N=64" in text, text
    got = [summary.split(": ", 1)[1] for _, summary in rewrite("retune", src, tmp_path / "r")]
    assert got == ["BLOCK_N 64 -> 128", "num_warps 4 -> 8", "num_warps 4 -> 2", "num_warps 4 -> 16"], got


def test_check_catches_a_deferred_min_started_from_the_wrong_end(tmp_path):
    """The negative control: the minimum's block accumulator must start at
    +inf (the identity of tl.minimum); started at -inf it never moves, and
    the check must say so."""
    (cand, _), = rewrite("defer-reduction", DATA / "rowrange_minmax.py", tmp_path)
    text = Path(cand).read_text()
    good = '_tdx_r1 = tl.full([BLOCK], float("inf"), tl.float32)'
    assert good in text
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace(good, '_tdx_r1 = tl.full([BLOCK], float("-inf"), tl.float32)'))
    res = check_task(str(DATA / "rowrange_minmax.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]


def test_defer_reduction_row_argmax(tmp_path):
    """The running arg-max of the bench task: per lane the best value and the
    index where it first came (offs, the tile's indices), the lanes reduced
    once after the loop and folded in by the loop's own update; the tile
    must be a float one. The candidate passes `tritondx check` in the
    interpreter, and the family does not apply to it again."""
    (cand, summary), = rewrite("defer-reduction", TASKS / "row_argmax.py", tmp_path / "a")
    text = Path(cand).read_text()
    assert summary == ("row_argmax_kernel: 1 running arg-max kept per lane (the best value and the index where "
                       "it came first), reduced once after the loop")
    assert (
        '    best_idx = 0\n'
        '    _tdx_r0 = tl.full([BLOCK], float("-inf"), tl.float32)\n'
        '    _tdx_r1 = tl.full([BLOCK], 2147483647, tl.int32)\n'
        '    for start in range(0, n_cols, BLOCK):\n'
        '        offs = start + tl.arange(0, BLOCK)\n'
        '        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))\n'
        '        # strictly greater keeps the first index on ties, as torch.argmax does\n'
        '        _tdx_r2 = x > _tdx_r0\n'
        '        _tdx_r1 = tl.where(_tdx_r2, offs, _tdx_r1)\n'
        '        _tdx_r0 = tl.where(_tdx_r2, x, _tdx_r0)\n'
        '        tl.static_assert(x.dtype.is_floating())\n'
        '    _tdx_r3 = tl.max(_tdx_r0, axis=0)\n'
        '    best_idx = tl.where(_tdx_r3 > best, tl.min(tl.where(_tdx_r0 == _tdx_r3, _tdx_r1, 2147483647), axis=0), '
        'best_idx)\n'
        '    best = tl.maximum(_tdx_r3, best)\n'
        '    tl.store(y_ptr + row, best_idx.to(tl.int64))\n') in text, text
    assert "tl.argmax" not in text and "m = tl.max(x" not in text
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([CLI, "check", "--device", "cpu", "--candidate", cand, str(TASKS / "row_argmax.py")],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0 and "correct on every check shape" in r.stdout, r.stdout + r.stderr
    assert rewrite("defer-reduction", cand, tmp_path / "b") == []


RUN_LAUNCH = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("task", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
(x,) = mod.make_inputs((12, 160), device="cpu", seed=int(sys.argv[2]))
print(json.dumps([t.tolist() for t in mod.launch(x)]))
"""


def interpreted(path, seed):
    """launch(*make_inputs((12, 160))) of the file at path, run by Triton's
    interpreter in a process of its own."""
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([sys.executable, "-c", RUN_LAUNCH, str(path), str(seed)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_deferred_argmax_keeps_the_first_index_on_ties(tmp_path):
    """row_argmax_ties's first rows: one value throughout, -inf throughout,
    -1 throughout (index 0; for the maximum started at 0.0, the -1 it
    started with), and a maximum twice -- in blocks 1 and 2 at lanes 8 and
    11 (40), in blocks 1 and 2 at lanes 13 and 6 (45: the later block's
    lane comes first), in one lane of blocks 0 and 1 (10). Both kernels'
    candidates give the original's outputs, row for row, over small-integer
    rows full of ties."""
    cands = [c for c, _ in rewrite("defer-reduction", DATA / "row_argmax_ties.py", tmp_path)]
    assert len(cands) == 2
    for seed in (0, 1):
        want = interpreted(DATA / "row_argmax_ties.py", seed)
        assert want[0][:6] == [0, 0, 0, 40, 45, 10] and want[1][:6] == [0, -1, -1, 40, 45, 10]
        for cand in cands:
            assert interpreted(cand, seed) == want


def test_check_catches_a_deferred_argmax_that_loses_the_first_index(tmp_path):
    """The negative controls of the arg-max: a lane that keeps its last tie
    (>=), the index taken from the first lane holding the maximum rather
    than the smallest index, and the running index replaced even when no
    value beat the start: the check of row_argmax_ties fails each."""
    cand = rewrite("defer-reduction", DATA / "row_argmax_ties.py", tmp_path)[0][0]
    text = Path(cand).read_text()
    first = "tl.min(tl.where(_tdx_r0 == _tdx_r3, _tdx_r1, 2147483647), axis=0)"
    guard = "best_idx = tl.where(_tdx_r3 > best, " + first + ", best_idx)"
    assert "_tdx_r2 = x > _tdx_r0" in text and guard in text
    for i, (good, bad) in enumerate([
            ("_tdx_r2 = x > _tdx_r0", "_tdx_r2 = x >= _tdx_r0"),
            (first, "tl.sum(tl.where(tl.arange(0, BLOCK) == tl.argmax(_tdx_r0, axis=0), _tdx_r1, 0), axis=0)"),
            (guard, "best_idx = " + first)]):
        path = tmp_path / f"bad{i}.py"
        path.write_text(text.replace(good, bad))
        res = check_task(str(DATA / "row_argmax_ties.py"), device="cpu", seeds=(0,), candidate=str(path))
        assert not res["ok"], bad


ARGMAX_BASE = '''import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = -float("inf")
    best_idx = 0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=-float("inf"))
        m = tl.max(x, axis=0)
        i = tl.argmax(x, axis=0) + start
        best_idx = tl.where(m > best, i, best_idx)
        best = tl.maximum(m, best)
    tl.store(y_ptr + row, best_idx)


def launch(x):
    y = torch.empty(x.shape[0], device=x.device, dtype=torch.int32)
    z = torch.zeros(x.shape[0] * 64, device=x.device, dtype=torch.int32)
    k[(x.shape[0],)](x, y, z, x.shape[1], BLOCK=16)
    return y


def reference(x):
    return x.argmax(dim=1).int()


def make_inputs(shape, dtype=torch.float32, device="cuda", seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(-3, 3, shape, generator=g).to(dtype).to(device),)


SHAPES = {"bench": (1024, 1024), "check": [(3, 50)]}
'''


@pytest.mark.parametrize("old,new", [
    # the index is stored again in the loop
    ("        best = tl.maximum(m, best)\n",
     "        best = tl.maximum(m, best)\n        tl.store(z_ptr + row * 64 + start // BLOCK, i)\n"),
    # the running value is read again in the loop
    ("        best = tl.maximum(m, best)\n",
     "        best = tl.maximum(m, best)\n        tl.store(z_ptr + row, best.to(tl.int32))\n"),
    # the block maximum lives on after the loop
    ("    best_idx = 0\n", "    best_idx = 0\n    m = 0.0\n"),
    # a position within the block, not an index of the row
    ("tl.argmax(x, axis=0) + start", "tl.argmax(x, axis=0)"),
    ("tl.argmax(x, axis=0) + start", "tl.argmax(x, axis=0) + row"),
    # any of the tied lanes
    ("tl.argmax(x, axis=0)", "tl.argmax(x, axis=0, tie_break_left=False)"),
    # the last block of the ties
    ("m > best", "m >= best"),
    # the same choice written the other way round: not recognised
    ("tl.where(m > best, i, best_idx)", "tl.where(m <= best, best_idx, i)"),
    # the index compared with the running value already raised
    ("        best_idx = tl.where(m > best, i, best_idx)\n        best = tl.maximum(m, best)\n",
     "        best = tl.maximum(m, best)\n        best_idx = tl.where(m > best, i, best_idx)\n"),
    # blocks that overlap
    ("range(0, n, BLOCK)", "range(0, n, BLOCK // 2)"),
    # x changes between the two reductions
    ("        i = tl.argmax", "        x = x * 2.0\n        i = tl.argmax"),
    # a running value that starts as NaN
    ('    best = -float("inf")\n', '    best = float("nan")\n'),
], ids=["index-stored", "best-read", "max-after-loop", "no-start", "plus-row", "tie-break-fast", "ge",
        "where-swapped", "fold-first", "overlap", "x-rebound", "nan-start"])
def test_defer_reduction_leaves_running_argmax_alone(old, new, tmp_path):
    task = tmp_path / "t.py"
    assert ARGMAX_BASE.count(old) == 1
    task.write_text(ARGMAX_BASE.replace(old, new))
    assert rewrite("defer-reduction", task, tmp_path / "out") == []


def test_defer_reduction_running_argmax_base(tmp_path):
    """The positive control of the cases above: rewritten, and correct."""
    task = tmp_path / "t.py"
    task.write_text(ARGMAX_BASE)
    (cand, _), = rewrite("defer-reduction", task, tmp_path / "out")
    assert "_tdx_r1 = tl.where(_tdx_r2, offs, _tdx_r1)" in Path(cand).read_text()
    res = check_task(str(task), device="cpu", seeds=(0, 1), candidate=cand)
    assert res["ok"], res.get("error")


@pytest.mark.parametrize("task,family,left", [
    ("bmm_fp16", "retune", 0),
    ("conv1d", "retune", 0),
    ("layernorm", "retune", 0),
    ("layernorm", "single-pass-reduction", 1),  # the pass fusion only: the launch is left alone
    ("cross_entropy", "single-pass-reduction", 1),
])
def test_no_launch_meta_parameters_on_an_autotuned_kernel(task, family, left, tmp_path):
    """A stack of autotune and a family that passes num_warps or a config's block size at the
    launch raised 'got multiple values for keyword argument' on the GPU: a kernel whose
    decorator tunes it gets no such candidate."""
    tuned = rewrite("autotune", TASKS / f"{task}.py", tmp_path / "at")
    assert tuned, task
    cands = rewrite(family, Path(tuned[0][0]), tmp_path / "out")
    assert len(cands) == left
    for path, _ in cands:
        launch = Path(path).read_text().split("\ndef launch", 1)[1]
        assert "num_warps" not in launch and "BLOCK=" not in launch


PEEL_BASE = '''import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
LOOP
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def launch(x):
    y = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    k[(x.shape[0],)](x, y, x.shape[1], BLOCK=64)
    return y
'''


@pytest.mark.parametrize("loop", [
    # the bound changes from block to block
    "        lim = start + 7\n        acc += tl.load(x_ptr + row * n + offs, mask=offs < lim, other=0.0)",
    # <= n is not `a block that ends before n`: not recognised
    "        acc += tl.load(x_ptr + row * n + offs, mask=offs <= n, other=0.0)",
    # one conjunct is not about the block's offsets (it is kept whole)
    "        acc += tl.load(x_ptr + row * n + offs, mask=(offs < n) & (row < 5), other=0.0)",
    # the offsets are bound again in the loop
    "        offs = offs + 1\n        acc += tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)",
    # the offsets step by something else than the loop's step
    "        offs2 = start + tl.arange(0, 2 * BLOCK)\n"
    "        acc += tl.load(x_ptr + row * n + offs2, mask=offs2 < n, other=0.0)",
    # the rows' start is rebound after the rows were formed: read again before the loop it would
    # not be their start
    "        pass\n    for start2 in range(0, n, BLOCK):\n"
    "        cols = start2 + tl.arange(0, BLOCK)\n"
    "        acc += tl.where(rows >= cols, 1.0, 0.0)",
], ids=["variant-bound", "le", "other-conjunct", "rebound", "other-step", "rows-start-rebound"])
def test_peel_masks_leaves_loops_alone(loop, tmp_path):
    task = tmp_path / "t.py"
    src = PEEL_BASE.replace("LOOP", loop)
    if "rows" in loop:
        src = src.replace("    acc = tl.zeros", "    base = row * BLOCK\n    rows = base + tl.arange(0, BLOCK)\n"
                          "    base = base + 1\n    acc = tl.zeros")
    task.write_text(src)
    assert rewrite("peel-masks", task, tmp_path / "out") == []


def test_peel_masks_rows_bound_and_nested_sites(tmp_path):
    """The positive control of rows-start-rebound (the rows' start bound once), and a masked load
    inside a tl.where that drops: the where's value is copied with its load as it is."""
    task = tmp_path / "t.py"
    task.write_text(PEEL_BASE.replace("    acc = tl.zeros", "    rows = row * BLOCK + tl.arange(0, BLOCK)\n    acc = tl.zeros")
                    .replace("LOOP", "        acc += tl.where(rows >= offs, tl.load(x_ptr + offs, mask=offs < n, other=0.0), 0.0)"))
    cands = rewrite("peel-masks", task, tmp_path / "out")
    assert len(cands) == 1
    text = Path(cands[0][0]).read_text()
    assert "_tdx_full = tl.maximum(tl.minimum(n, (row * BLOCK)), 0) // BLOCK * BLOCK" in text
    assert "        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)\n" in text


def test_peel_masks_base_loop_is_peeled(tmp_path):
    """The positive control of the cases above: the same loop with `offs < n`."""
    task = tmp_path / "t.py"
    task.write_text(PEEL_BASE.replace(
        "LOOP", "        acc += tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)"))
    cands = rewrite("peel-masks", task, tmp_path / "out")
    assert len(cands) == 1
    text = Path(cands[0][0]).read_text()
    assert "_tdx_full = tl.maximum(n, 0) // BLOCK * BLOCK" in text
    assert "acc += tl.load(x_ptr + row * n + offs)\n" in text
    assert "for start in range(_tdx_full, n, BLOCK):" in text


def test_defer_reduction_keeps_a_3d_product_as_it_is(tmp_path):
    """A broadcast product reduced over its middle axis (a dot written by hand) would keep a
    BM x BK x BN accumulator: only the matrix-vector kernel beside it is rewritten."""
    cands = rewrite("defer-reduction", ROOT / "tests" / "data" / "triage" / "manual_dot.py", tmp_path)
    assert len(cands) == 1
    text = Path(cands[0][0]).read_text()
    assert text.count("_tdx_r0 = tl.zeros([BLOCK_M, BLOCK_K], dtype=tl.float32)") == 1
    assert "_tdx_r1" not in text
    assert "        acc += tl.sum(prod, axis=1)\n" in text


ATOMIC_BASE = '''import torch
import triton
import triton.language as tl


@triton.jit
def helper(p):
    return tl.load(p)


@triton.jit
def k(src_ptr, idx_ptr, out_ptr, lock_ptr, D, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    dst = tl.load(idx_ptr + t)
    offs = tl.arange(0, BLOCK)
    v = tl.load(src_ptr + t * D + offs, mask=offs < D)
BODY


def launch(src, idx, n):
    out = torch.zeros((n, src.shape[1]), dtype=src.dtype, device=src.device)
    lock = torch.zeros(1, dtype=torch.int32, device=src.device)
    k[(src.shape[0],)](src, idx, out, lock, src.shape[1], BLOCK=256)
    return out
'''
ADD = "    tl.atomic_add(out_ptr + dst * D + offs, v, mask=offs < D)"


@pytest.mark.parametrize("body", [
    "    old = tl.atomic_add(out_ptr + dst * D + offs, v, mask=offs < D)\n"
    "    tl.store(src_ptr + t * D + offs, old, mask=offs < D)",                 # the old value is read
    ADD + "\n    tl.atomic_cas(lock_ptr, 0, 1)",                                  # a lock
    ADD + "\n    tl.atomic_xchg(lock_ptr, 0)",
    ADD + "\n    w = tl.load(out_ptr + dst * D + offs, mask=offs < D)\n"
    "    tl.store(src_ptr + t * D + offs, w, mask=offs < D)",                     # reads what it orders
    ADD + "\n    x = helper(src_ptr)",                                            # a helper is not seen
    "    tl.atomic_add(out_ptr + dst * D + offs, v, mask=offs < D, sem=\"release\")",  # its own order
], ids=["result-used", "cas", "xchg", "reads-back", "helper", "sem-given"])
def test_relax_atomics_leaves_kernel_alone(body, tmp_path):
    task = tmp_path / "t.py"
    task.write_text(ATOMIC_BASE.replace("BODY", body))
    assert rewrite("relax-atomics", task, tmp_path / "out") == []


def test_relax_atomics_base_kernel(tmp_path):
    """The positive control: the accumulating atomic alone gets sem="relaxed"."""
    task = tmp_path / "t.py"
    task.write_text(ATOMIC_BASE.replace("BODY", ADD))
    cands = rewrite("relax-atomics", task, tmp_path / "out")
    assert len(cands) == 1
    assert 'tl.atomic_add(out_ptr + dst * D + offs, v, mask=offs < D, sem="relaxed")' in \
        Path(cands[0][0]).read_text()
