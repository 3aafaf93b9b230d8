"""The families vectorize-loop, persistent-grid, coalesce and fuse-launches
beyond the common check of test_families.py: where they must emit nothing,
and hand-broken variants of their candidates that the check must reject."""
import subprocess
from pathlib import Path

from tritondx_harness.check import check_task

from test_families import CLI, DATA, ROOT, rewrite

TASKS = ROOT / "bench" / "tasks"


def yields(family, task, tmp_path):
    r = subprocess.run([CLI, "rewrite", "--family", family, "--out-dir", str(tmp_path), str(task)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return [line.split("\t")[0] for line in r.stdout.splitlines() if "\t" in line]


def check(task, cand, seeds=(0,)):
    return check_task(str(task), device="cpu", seeds=seeds, candidate=str(cand))


# ---- vectorize-loop ---------------------------------------------------------

def test_vectorize_leaves_a_carried_value_alone(tmp_path):
    """A running sum stored every iteration is carried from one iteration to
    the next: the loop is not per-element and must not be vectorized."""
    assert yields("vectorize-loop", DATA / "cumsum_scalar.py", tmp_path) == []


def test_vectorize_leaves_block_loops_alone(tmp_path):
    """col_sum's loop already steps by blocks of rows, softmax_long's tiles
    are 2-D-free but its loops step by BLOCK; transpose has no loop."""
    for task in ("col_sum.py", "transpose.py", "softmax_long.py"):
        assert yields("vectorize-loop", TASKS / task, tmp_path) == [], task


def test_vectorize_blocks_a_row_loop_along_a_leading_axis(tmp_path):
    """A loop that reads one row of a 1-D tile per iteration takes R rows at
    once: the index becomes an [R, 1] column, the accumulator adds the block
    reduced over axis 0; R follows the tile (4096 elements, then 1024)."""
    cands = rewrite("vectorize-loop", TASKS / "col_mean_bf16.py", tmp_path)
    assert len(cands) == 2
    text = Path(cands[0]).read_text()
    assert "r = (_vs + tl.arange(0, 64))[:, None]" in text
    assert "acc += tl.sum(tl.where(_vm, tl.load(" in text and "axis=0)" in text
    assert "mask=_vm & (mask)" in text
    assert "tl.arange(0, 16))[:, None]" in Path(cands[1]).read_text()


def test_vectorize_scales_a_split_loop_step(tmp_path):
    """A loop over every S-th row (S = tl.num_programs(2)) blocks R of its
    steps: range(lo, hi, R * (S)), rows _vs + arange * (S)."""
    cands = rewrite("vectorize-loop", DATA / "colmean_split.py", tmp_path)
    text = Path(cands[0]).read_text()
    assert "range(_tdx_pid_k, n_rows, 256 * (_tdx_split_k))" in text
    assert "tl.arange(0, 256) * (_tdx_split_k))[:, None]" in text


def test_vectorize_takes_a_short_known_loop_whole(tmp_path):
    """conv2d's kw loop runs 3 times: one candidate, 4 rows (3 live)."""
    cands = rewrite("vectorize-loop", TASKS / "conv2d.py", tmp_path)
    assert len(cands) == 1
    assert "kw = (_vs + tl.arange(0, 4))[:, None]" in Path(cands[0]).read_text()


def test_vectorize_leaves_kernels_with_2d_tiles_alone(tmp_path):
    """A row loop in a kernel that already has a 2-D tile (a subscript) is
    not blocked: the new axis would not line up."""
    src = (DATA / "colmean_rows.py").read_text()
    two_d = src.replace("acc += tl.load(x_ptr + r * n_cols + cols, mask=mask, other=0.0).to(tl.float32)",
                        "acc += tl.sum(tl.load(x_ptr + r * n_cols + cols[None, :], mask=mask[None, :], "
                        "other=0.0).to(tl.float32), axis=0)")
    assert two_d != src
    p = tmp_path / "two_d.py"
    p.write_text(two_d)
    assert yields("vectorize-loop", p, tmp_path / "out") == []


def test_check_rejects_a_vectorized_carried_loop(tmp_path):
    """Why the carried loop is refused: vectorizing it anyway (the sum of the
    block instead of the running sum) fails the check."""
    src = (DATA / "cumsum_scalar.py").read_text()
    bad_src = src.replace(
        "    for j in range(n_cols):\n"
        "        run += tl.load(x_ptr + row * n_cols + j)\n",
        "    for _vs in range(0, n_cols, 64):\n"
        "        j = _vs + tl.arange(0, 64)\n"
        "        _vm = j < n_cols\n"
        "        run += tl.sum(tl.load(x_ptr + row * n_cols + j, mask=_vm, other=0.0), axis=0)\n")
    bad_src = bad_src.replace("tl.store(y_ptr + row * n_cols + j, run)",
                              "tl.store(y_ptr + row * n_cols + j, run, mask=_vm)")
    assert bad_src != src
    bad = tmp_path / "bad.py"
    bad.write_text(bad_src)
    assert not check(DATA / "cumsum_scalar.py", bad)["ok"]


def test_vectorize_masks_reductions_with_the_neutral_value(tmp_path):
    cands = rewrite("vectorize-loop", DATA / "rowrange_scalar.py", tmp_path)
    text = Path(cands[0]).read_text()
    assert "tl.sum(tl.where(_vm, v, 0), axis=0)" in text
    assert 'tl.max(tl.where(_vm, v, -float("inf")), axis=0)' in text
    assert 'tl.min(tl.where(_vm, v, float("inf")), axis=0)' in text
    # without the neutral value the masked lanes enter the max: the check fails
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace('tl.max(tl.where(_vm, v, -float("inf")), axis=0)',
                                "tl.max(tl.where(_vm, v, 1e9), axis=0)"))
    assert not check(DATA / "rowrange_scalar.py", bad)["ok"]


# ---- persistent-grid ----------------------------------------------------------

def few_programs(text):
    """The candidate with one SM's worth of programs: on the small check
    shapes each program then loops over several tiles."""
    assert "return 132" in text
    return text.replace("return 132", "return 1")


def test_persistent_programs_loop_over_every_tile(tmp_path):
    for task in ("scale.py", "matmul_notf32.py", "scale_rows_dns.py"):
        cands = rewrite("persistent-grid", DATA / task, tmp_path / task)
        assert len(cands) == 3
        text = Path(cands[0]).read_text()
        assert "for _tile in tl.range(tl.program_id(0), _n_tiles, tl.num_programs(0)):" in text
        looped = tmp_path / f"looped_{task}"
        looped.write_text(few_programs(text))
        res = check(DATA / task, looped)
        assert res["ok"], f"{task}: {res.get('error')}"


def test_persistent_2d_grid_is_flattened(tmp_path):
    text = Path(rewrite("persistent-grid", DATA / "matmul_ieee.py", tmp_path)[0]).read_text()
    assert "_n_tiles_n = tl.cdiv(N, BLOCK_N)" in text
    assert "pid_m = (_tile // _n_tiles_n)" in text and "pid_n = (_tile % _n_tiles_n)" in text
    assert "grid = (min((triton.cdiv(M, 32)) * (triton.cdiv(N, 32)), 2 * _num_sms()),)" in text


def test_check_rejects_a_persistent_loop_that_skips_tiles(tmp_path):
    """The negative control: a tile stride of twice the grid leaves tiles
    unwritten once programs loop, and the check must say so."""
    text = Path(rewrite("persistent-grid", DATA / "scale.py", tmp_path)[0]).read_text()
    bad = tmp_path / "bad.py"
    bad.write_text(few_programs(text).replace("_n_tiles, tl.num_programs(0))", "_n_tiles, 2 * tl.num_programs(0))"))
    assert not check(DATA / "scale.py", bad)["ok"]


def test_persistent_sum_adds_once_per_program(tmp_path):
    """A whole-tensor sum (the suite's sum_all: one atomic per tile on one
    word) keeps its sum in a register across its tiles and adds once after
    the loop; with one SM's worth of programs each loops over several tiles
    of the check shapes and the check passes. Moving the atomic back into
    the loop while the register keeps summing counts tiles twice: the check
    fails."""
    cands = rewrite("persistent-grid", TASKS / "sum_all.py", tmp_path)
    assert len(cands) == 3
    text = Path(cands[0]).read_text()
    assert "    _tdx_part = tl.zeros([], dtype=out_ptr.dtype.element_ty)\n" in text
    assert "        _tdx_part += tl.sum(x, axis=0)\n    tl.atomic_add(out_ptr, _tdx_part)\n" in text
    looped = tmp_path / "looped.py"
    looped.write_text(few_programs(text))
    res = check(TASKS / "sum_all.py", looped)
    assert res["ok"], res.get("error")
    bad = tmp_path / "bad.py"
    bad.write_text(few_programs(text).replace("        _tdx_part += tl.sum(x, axis=0)\n    tl.atomic_add(",
                                              "        _tdx_part += tl.sum(x, axis=0)\n        tl.atomic_add("))
    assert not check(TASKS / "sum_all.py", bad)["ok"]


def test_persistent_sum_of_a_one_statement_body(tmp_path):
    """The atomic is the whole body (its sum reads the program id itself, and
    it passes sem): the loop holds only the register sum, the program id read
    as the tile, and the atomic keeps its keyword after the loop."""
    src = (TASKS / "sum_all.py").read_text()
    body = ("    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
            "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)\n"
            "    tl.atomic_add(out_ptr, tl.sum(x, axis=0))\n")
    one = ("    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK), "
           "mask=tl.program_id(0) * BLOCK + tl.arange(0, BLOCK) < n, other=0.0)), sem=\"relaxed\")\n")
    assert src.count(body) == 1
    task = tmp_path / "one.py"
    task.write_text(src.replace(body, one))
    text = Path(rewrite("persistent-grid", task, tmp_path / "o")[0]).read_text()
    assert ("tl.num_programs(0)):\n        _tdx_part += tl.sum(tl.load(x_ptr + _tile * BLOCK" in text and
            '\n    tl.atomic_add(out_ptr, _tdx_part, sem="relaxed")\n' in text), text
    looped = tmp_path / "looped.py"
    looped.write_text(few_programs(text))
    res = check(TASKS / "sum_all.py", looped)
    assert res["ok"], res.get("error")


def test_persistent_sum_with_a_masked_atomic_stays_per_tile(tmp_path):
    """An atomic with a mask (or a value that is not a tl.sum) is not one
    word's sum: the body moves into the loop unchanged."""
    src = (TASKS / "sum_all.py").read_text()
    masked = tmp_path / "masked.py"
    masked.write_text(src.replace("tl.atomic_add(out_ptr, tl.sum(x, axis=0))",
                                  "tl.atomic_add(out_ptr, tl.sum(x, axis=0), mask=n > 0)"))
    text = Path(rewrite("persistent-grid", masked, tmp_path / "m")[0]).read_text()
    assert "_tdx_part" not in text
    assert "        tl.atomic_add(out_ptr, tl.sum(x, axis=0), mask=n > 0)" in text


def test_persistent_leaves_early_returns_and_3d_grids_alone(tmp_path):
    assert yields("persistent-grid", DATA / "scale_guard.py", tmp_path) == []
    assert yields("persistent-grid", TASKS / "conv1d.py", tmp_path) == []


# ---- coalesce -------------------------------------------------------------------

def test_coalesce_retiles_the_suite_transpose_and_col_sum(tmp_path):
    """The suite's own column walks: one candidate of each passes the check."""
    for task in ("transpose.py", "col_sum.py"):
        cands = rewrite("coalesce", TASKS / task, tmp_path / task)
        assert len(cands) == 3, task
        text = Path(cands[0]).read_text()
        assert "tl.arange(0, 64)" in text and ")[:, None]" in text and "triton.cdiv(" in text
        res = check(TASKS / task, cands[0])
        assert res["ok"], f"{task}: {res.get('error')}"


def test_coalesce_turns_scalar_accumulators_into_blocks(tmp_path):
    text = Path(rewrite("coalesce", DATA / "col_max_scalar.py", tmp_path)[0]).read_text()
    assert 'm = tl.full((64,), -float("inf"), dtype=tl.float32)' in text
    assert "tl.store(y_ptr + col, m, mask=col < n_cols)" in text


def test_coalesce_widens_block_accumulators_and_passes_the_bound(tmp_path):
    """A tl.zeros([BLOCK]) accumulator gains the new axis; a bound the kernel
    does not receive is passed as a new last parameter."""
    cands = rewrite("coalesce", DATA / "col_sum_vec_acc.py", tmp_path)
    text = Path(cands[0]).read_text()
    assert "acc = tl.zeros([BLOCK, 64], dtype=tl.float32)" in text
    assert "BLOCK: tl.constexpr, _bound):" in text and "_bound=n_cols)" in text
    res = check(DATA / "col_sum_vec_acc.py", cands[0])
    assert res["ok"], res.get("error")


def test_check_rejects_a_retiled_grid_that_drops_the_tail(tmp_path):
    """The negative control: a grid of n // C programs leaves the last
    columns unwritten (300 x 7 has fewer columns than one block)."""
    text = Path(rewrite("coalesce", DATA / "col_max_scalar.py", tmp_path)[0]).read_text()
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace("triton.cdiv(n_cols, 64)", "n_cols // 64"))
    assert bad.read_text() != text
    assert not check(DATA / "col_max_scalar.py", bad)["ok"]


def test_coalesce_leaves_contiguous_and_tiled_kernels_alone(tmp_path):
    """Row-contiguous kernels (softmax, row sums) and kernels already tiled
    along the contiguous axis (col_max_fp16, col_mean_bf16) give nothing."""
    for task in (DATA / "softmax.py", DATA / "rowsum_loop.py", TASKS / "col_max_fp16.py",
                 TASKS / "col_mean_bf16.py", TASKS / "row_sum.py"):
        assert yields("coalesce", task, tmp_path) == [], task.name


# ---- fuse-launches ---------------------------------------------------------------

def variant(tmp_path, name, *pairs):
    """scale_then_add.py with text replaced, written under tmp_path."""
    src = (DATA / "scale_then_add.py").read_text()
    for old, new in pairs:
        assert old in src, old
        src = src.replace(old, new)
    path = tmp_path / name
    path.write_text(src)
    return path


def test_fuse_removes_the_intermediate(tmp_path):
    text = Path(rewrite("fuse-launches", DATA / "scale_then_add.py", tmp_path)[0]).read_text()
    launch = text[text.index("def launch"):text.index("def reference")]
    assert "tmp" not in launch and launch.count("](") == 1
    assert "_fused_t = x * alpha" in text and "a_b = _fused_t" in text


def test_fuse_needs_a_provably_simple_data_flow(tmp_path):
    """Nothing is fused when the intermediate is also returned, when the
    second kernel reads it at other indices, or when the grids differ."""
    returned = variant(tmp_path, "returned.py", ("    return y\n", "    return y, tmp\n"))
    shifted = variant(tmp_path, "shifted.py", ("a = tl.load(a_ptr + offs, mask=mask)",
                                               "a = tl.load(a_ptr + (n - 1 - offs), mask=mask)"))
    other_grid = variant(tmp_path, "grid.py", ("add_kernel[grid](tmp, z, y, n, BLOCK=256)",
                                               "add_kernel[(triton.cdiv(n, 128),)](tmp, z, y, n, BLOCK=128)"))
    for task in (returned, shifted, other_grid):
        assert yields("fuse-launches", task, tmp_path / "out") == [], task.name
    for task in ("softmax_long.py", "matmul_fp16_square.py"):  # one launch each
        assert yields("fuse-launches", TASKS / task, tmp_path / "out") == [], task


def test_check_rejects_fusing_a_reversed_read(tmp_path):
    """Why lanes must match: with the second kernel reading the intermediate
    reversed, the task is right but a fuse that ignores the index is not."""
    rev = variant(tmp_path, "rev.py",
                  ("a = tl.load(a_ptr + offs, mask=mask)", "a = tl.load(a_ptr + (n - 1 - offs), mask=mask)"),
                  ("return 3.0 * x.double() + z.double()", "return 3.0 * x.double().flip(0) + z.double()"))
    assert check(rev, rev)["ok"]
    naive = rewrite("fuse-launches", DATA / "scale_then_add.py", tmp_path / "cands")[0]
    assert not check(rev, naive)["ok"]
