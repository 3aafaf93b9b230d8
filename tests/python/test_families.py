"""Every built-in rewrite family applied to at least two kernels: each
candidate it yields parses (the CLI parses it) and passes the task's own
check through Triton's interpreter."""
import os
import subprocess
from pathlib import Path

import pytest

from conftest import rewrite_family
from tritondx_harness.check import check_task

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "rewrite"
CLI = os.environ.get("TDX_CLI", str(ROOT / "build" / "tritondx"))

CASES = [
    ("retune", "scale.py"),
    ("retune", "rowsum_loop.py"),
    ("retune", "matmul_ieee.py"),
    ("retune", "matmul_grid_var.py"),
    ("pipelining", "softmax.py"),
    ("pipelining", "rowsum_loop.py"),
    ("tensor-cores", "matmul_ieee.py"),
    ("tensor-cores", "matmul_notf32.py"),
    ("exp2", "softmax.py"),
    ("exp2", "silu_dns.py"),
    ("exp2", ROOT / "bench" / "tasks" / "attention_fp16.py"),  # the row maximum in a fused multiply-add
    ("alignment-hints", "silu_dns.py"),
    ("alignment-hints", "scale_rows_dns.py"),
    ("remove-launch-passes", "silu_dns.py"),
    ("remove-launch-passes", "scale_rows_dns.py"),
    ("grouped-order", "matmul_ieee.py"),
    ("grouped-order", "matmul_notf32.py"),
    ("grouped-order", "matmul_grid_var.py"),
    ("single-pass-reduction", "softmax.py"),
    ("single-pass-reduction", "layernorm_loop.py"),
    ("single-pass-reduction", "xent_loop.py"),
    ("split-k", "matmul_small_m.py"),
    ("split-k", "matmul_grid_var.py"),
    ("split-k", "matmul_ptr_advance.py"),
    ("split-reduction", "colmean_rows.py"),
    ("split-reduction", "colmin_tiles.py"),
    ("split-reduction", "rowsum_loop.py"),
    ("defer-reduction", "rowsum_scalar_acc.py"),
    ("defer-reduction", "rowrange_minmax.py"),
    ("defer-reduction", "matvec_scalar_acc.py"),
    ("defer-reduction", "band_stats_nested.py"),
    ("defer-reduction", ROOT / "bench" / "tasks" / "row_max.py"),
    ("defer-reduction", "colmin_tiles.py"),                  # one axis of a 2-D tile into a tile accumulator
    ("defer-reduction", ROOT / "bench" / "tasks" / "col_max_fp16.py"),
    ("defer-reduction", ROOT / "bench" / "tasks" / "row_argmax.py"),  # a running arg-max: best value and index a lane
    ("defer-reduction", "row_argmax_ties.py"),               # ties within and across blocks; a running maximum from 0.0
    ("defer-reduction", "row_argmin_fp16.py"),               # the arg-min of fp16 values, `lo > m`, tl.range
    ("defer-reduction", "colmin_bf16_widened.py"),           # bf16 lanes for a minimum of widened loads
    ("defer-reduction", "rowmax_int_widened.py"),            # int32 loads: an fp32 accumulator
    ("relax-atomics", ROOT / "bench" / "tasks" / "scatter_add.py"),
    ("relax-atomics", ROOT / "bench" / "tasks" / "sum_all.py"),
    ("peel-masks", "window_rowsum.py"),
    ("peel-masks", "causal_rowsum.py"),
    ("peel-masks", ROOT / "bench" / "tasks" / "attention_causal_fp16.py"),
    ("peel-masks", ROOT / "bench" / "tasks" / "attention_fp16.py"),
    ("fold-programs", "heads_tiny.py"),
    ("fold-programs", "rows_masked_tiny.py"),
    ("fold-programs", "scale.py"),
    ("fold-programs", "softmax_rows_short.py"),
    ("vectorize-loop", "scale_scalar.py"),
    ("vectorize-loop", "rowrange_scalar.py"),
    ("vectorize-loop", "colmean_rows.py"),
    ("vectorize-loop", "colmean_split.py"),
    ("persistent-grid", "scale.py"),
    ("persistent-grid", "matmul_notf32.py"),
    ("persistent-grid", "scale_rows_dns.py"),
    ("coalesce", "transpose_rows.py"),
    ("coalesce", "col_max_scalar.py"),
    ("fuse-launches", "scale_then_add.py"),
    ("fuse-launches", "bias_then_gelu.py"),
    ("block-outputs", ROOT / "bench" / "tasks" / "conv1d.py"),
    ("block-outputs", ROOT / "bench" / "tasks" / "conv2d.py"),
    ("dot-accumulate", "matmul_outer.py"),
    ("dot-accumulate", "gram_outer.py"),                     # positional mask / other, `acc = acc + row * col`
    ("tensor-descriptors", "matmul_ieee.py"),
    ("tensor-descriptors", "matmul_small_m.py"),
    ("tensor-descriptors", ROOT / "bench" / "tasks" / "matmul_bf16_square.py"),
    ("operand-layout", "matmul_fp32_ptrs.py"),
    ("operand-layout", ROOT / "bench" / "tasks" / "matmul_fp32_square.py"),
    ("hoist-scale", ROOT / "bench" / "tasks" / "attention_fp16.py"),
    ("hoist-scale", ROOT / "bench" / "tasks" / "attention_causal_fp16.py"),
    ("row-grid", ROOT / "bench" / "tasks" / "batchnorm_infer_fp16.py"),  # (offs // HW) % C, four row loads
    ("row-grid", "row_scale_flat.py"),                       # block-first product, a lambda grid, other=
    ("row-grid", "channel_bias_tutorial.py"),                # pid and block_start names, a named lambda grid
    ("erf-polynomial", ROOT / "bench" / "tasks" / "gelu.py"),            # tl.math.erf on fp32 of fp16 data
    ("erf-polynomial", "gelu_erf_fp32.py"),                  # tl.erf spelled short, fp32 output (1e-5)
    ("reverse-pass", ROOT / "bench" / "tasks" / "log_softmax_long.py"),  # online statistics, then the write pass
    ("reverse-pass", ROOT / "bench" / "tasks" / "groupnorm.py"),         # three passes: the last turned around
    ("reverse-pass", ROOT / "bench" / "tasks" / "layernorm.py"),
    ("heavy-first", ROOT / "bench" / "tasks" / "attention_causal_fp16.py"),  # keys up to the diagonal
    ("heavy-first", "causal_rowsum.py"),                     # a causal row sum, its bound through tl.minimum
    ("autotune", "scale.py"),
    ("autotune", "matmul_grid_var.py"),
    ("autotune", "rowsum_loop.py"),
    ("autotune", "bias_then_gelu.py"),
]


def rewrite(family, task, out_dir):
    return [c for c, _ in rewrite_family(family, task, out_dir)]


@pytest.mark.parametrize("family,task", CASES, ids=[f"{f}:{Path(t).name}" for f, t in CASES])
def test_family_candidates_pass_the_check(family, task, tmp_path):
    task_path = DATA / task  # a Path of its own (a bench task) stays as it is
    before = task_path.read_bytes()
    cands = rewrite(family, task_path, tmp_path)
    assert cands, f"{family} yields nothing for {task}"
    for cand in cands[:3]:
        text = Path(cand).read_text()
        assert text != before.decode()
        res = check_task(str(task_path), device="cpu", seeds=(0, 1, 2), candidate=cand)
        assert res["ok"], f"{family} candidate {cand}: {res.get('error')}"
    assert task_path.read_bytes() == before  # the task itself is never modified


def test_reverse_pass_leaves_a_carried_pass_alone(tmp_path):
    """row_prefix_two_pass's second pass carries `run` from block to block:
    walked backwards it would write other values, so the family offers
    nothing; log_softmax_long's write pass binds `start` from the new index
    and reads nothing it bound the iteration before."""
    assert rewrite("reverse-pass", ROOT / "tests" / "data" / "triage" / "row_prefix_two_pass.py", tmp_path / "a") == []
    (cand,) = rewrite("reverse-pass", ROOT / "bench" / "tasks" / "log_softmax_long.py", tmp_path / "b")
    text = Path(cand).read_text()
    assert "    for _tdx_r in range(0, n_cols, BLOCK):\n        start = (n_cols - 1) // BLOCK * BLOCK - _tdx_r\n" in text
    assert text.count("for start in range(0, n_cols, BLOCK):") == 1


def elementwise_helper(family, task, helper, kernel, tmp_path, monkeypatch):
    """The @triton.jit helper a family's first candidate on task puts before
    its kernel, as a function of a float32 tensor run by the interpreter (one
    element-wise kernel that applies it)."""
    import importlib.util

    import torch
    cand = rewrite_family(family, task, tmp_path / "c")[0][0]
    text = Path(cand).read_text()
    body = text[text.index(f"@triton.jit\ndef {helper}("):text.index(f"@triton.jit\ndef {kernel}(")]
    (tmp_path / "helperk.py").write_text(
        "import torch\nimport triton\nimport triton.language as tl\n\n\n" + body +
        "@triton.jit\ndef k(x_ptr, y_ptr, n, B: tl.constexpr):\n"
        "    o = tl.program_id(0) * B + tl.arange(0, B)\n"
        f"    tl.store(y_ptr + o, {helper}(tl.load(x_ptr + o, mask=o < n)), mask=o < n)\n")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    spec = importlib.util.spec_from_file_location("helperk", tmp_path / "helperk.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def apply(x):
        y = torch.empty_like(x)
        mod.k[((x.numel() + 4095) // 4096,)](x, y, x.numel(), B=4096)
        return y
    return apply


def test_erf_polynomial_is_close_to_erf(tmp_path, monkeypatch):
    """The helper the erf-polynomial family adds, run by the interpreter on
    400,002 points of [-8, 8]: within 1e-6 of torch's erf (the formula's
    1.5e-7 plus fp32 rounding in its Horner chain: 5.3e-7 seen; 3e-7 at 0,
    where the coefficients' sum is not exactly 1 in fp32), and odd."""
    import torch
    erf = elementwise_helper("erf-polynomial", ROOT / "bench" / "tasks" / "gelu.py", "_tdx_erf", "gelu_kernel",
                             tmp_path, monkeypatch)
    half = torch.linspace(0, 8, 200001)
    x = torch.cat([-half.flip(0), half])
    y = erf(x)
    err = (y.double() - torch.erf(x.double())).abs().max().item()
    assert err < 1e-6, err
    assert torch.equal(y[:200001], -y[200001:].flip(0))


def test_tf32_rounding_is_to_the_nearest(tmp_path, monkeypatch):
    """The helper tensor-cores puts before a rounded tf32 dot, run by the
    interpreter: each fp32 value becomes the nearer of its two neighbouring
    tf32 values (top 19 bits), a tie the one away from zero, as
    cvt.rna.tf32.f32 does (an exponent as wide as needed, then inf past the
    largest); zeros, subnormals and infinities too, a quiet NaN stays NaN."""
    import torch
    tf32 = elementwise_helper("tensor-cores", DATA / "matmul_ieee.py", "_tdx_tf32", "matmul_kernel",
                              tmp_path, monkeypatch)
    g = torch.Generator().manual_seed(0)
    bits = torch.randint(-2**31, 2**31, (100000,), generator=g, dtype=torch.int64)
    bits = bits[((bits >> 23) & 0xFF) != 0xFF]  # finite patterns
    ties = (bits & ~0x1FFF) | 0x1000  # exactly halfway between two tf32 values
    special = torch.tensor([0.0, -0.0, 1.0, -1.0, 1e-40, -1e-40, 3.4028234663852886e38, -3.4028234663852886e38,
                            float("inf"), float("-inf"), float("nan")])
    x = torch.cat([bits.to(torch.int32).view(torch.float32), ties.to(torch.int32).view(torch.float32),
                   torch.randn(10000, generator=g), special])
    y = tf32(x)
    xb = x.view(torch.int32).to(torch.int64)
    xd = x.double()
    down = (xb & ~0x1FFF).to(torch.int32).view(torch.float32).double()  # toward zero
    exp = ((xb >> 23) & 0xFF).clamp(min=1).double()
    up = down + torch.sign(xd) * torch.pow(2.0, exp - 137)  # one tf32 step away from zero, in float64
    want = torch.where((up - xd).abs() <= (xd - down).abs(), up, down)
    want = torch.where(want.abs() >= 2.0 ** 128, torch.sign(xd) * float("inf"), want)
    want = torch.where(x.isinf() | (x == 0), xd, want)
    nan = x.isnan()
    assert nan.sum() == 1 and y[nan].isnan().all()
    assert torch.equal(y[~nan].double(), want[~nan])
    assert torch.equal(y[~nan].view(torch.int32) & 0x1FFF, torch.zeros_like(y[~nan], dtype=torch.int32))
    assert y[-5].item() == float("inf") and y[-4].item() == float("-inf")  # the largest finite values


def test_every_family_is_covered_twice():
    r = subprocess.run([CLI, "rewrite", "--list"], capture_output=True, text=True, check=True)
    families = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    assert families
    for f in families:
        assert sum(1 for fam, _ in CASES if fam == f) >= 2, f


def test_check_catches_a_launch_left_inconsistent(tmp_path):
    """The negative control: a block made smaller without its grid leaves
    elements unwritten, and the check must say so."""
    src = (DATA / "scale.py").read_text()
    bad = tmp_path / "bad.py"
    bad.write_text(src.replace("BLOCK=64", "BLOCK=16"))
    res = check_task(str(DATA / "scale.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]


def test_check_catches_a_wrong_program_order(tmp_path):
    """The negative control for grouped-order: a mapping from the 1-D program id
    that skips tiles must fail the check (matmul_ieee's third check shape has
    ten rows of tiles, more than one group)."""
    cands = rewrite("grouped-order", DATA / "matmul_ieee.py", tmp_path)
    text = Path(cands[0]).read_text()
    assert "// _group_m" in text
    bad = tmp_path / "bad.py"
    bad.write_text(text.replace("(_pid % (8 * _num_pid_n)) // _group_m", "(_pid % (8 * _num_pid_n)) // 8"))
    res = check_task(str(DATA / "matmul_ieee.py"), device="cpu", seeds=(0,), candidate=str(bad))
    assert not res["ok"]


@pytest.mark.parametrize("task,first", [
    ("matmul_fp16_square.py", "tiles 128x256x64, num_warps=8, num_stages=3"),
    ("bmm_fp16.py", "tiles 128x256x64, num_warps=8, num_stages=3"),
    ("matmul_fp16_tall_skinny.py", "tiles 128x64x64, num_warps=8, num_stages=3"),   # N = 64: no 128-wide tile
    ("matmul_fp16_small_m.py", "tiles 64x128x64, num_warps=8, num_stages=3"),       # M = 16: 64 rows, wgmma's least
    ("matmul_fp32_square.py", "tiles 128x256x32, num_warps=8, num_stages=3"),      # 4-byte inputs: K=32
    ("attention_fp16.py", "128 rows x 64 columns a block, num_warps=8, num_stages=3"),  # two dots: attention's list
    ("attention_causal_fp16.py", "128 rows x 64 columns a block, num_warps=8, num_stages=3"),
])
def test_retune_puts_wide_tiles_first_for_large_16_bit_matmuls(task, first, tmp_path):
    """A 16-bit matmul with N >= 256 and two waves of 128x256 tiles at the
    bench shape tries that tile first (the one that won on the H200); fp32
    operands get their own list (128x256x32 led the H200's fp32 sweep). A
    tile is never wider than the bench shape's N (nor taller than its M, down
    to 64 rows): no tile computes columns it masks off."""
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path),
                        str(ROOT / "bench" / "tasks" / task)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout, r.stderr
    assert r.stdout.splitlines()[0].split("\t")[1].endswith(first), r.stdout
    if "tall_skinny" in task:
        assert not any("x128x" in line or "x256x" in line for line in r.stdout.splitlines()), r.stdout


def test_retune_follows_the_grid_axis_the_kernel_tiles(tmp_path):
    """The grid literal that changes with a block is the one in the grid entry
    whose program_id the kernel multiplies by that block, whatever the size
    argument is called: cdiv(S, 64) follows BLOCK_M in attention (pid_m *
    BLOCK_M), cdiv(n_cols, 16) follows BLOCK_N in col_argmax (pid * BLOCK_N).
    Before, only `cdiv(M, ..)`-style names were followed and these grids kept
    their old size (4x the programs needed, or too few)."""
    tasks = ROOT / "bench" / "tasks"
    cands = rewrite("retune", tasks / "attention_fp16.py", tmp_path / "a")
    text = Path(cands[0]).read_text()
    assert "grid = (triton.cdiv(S, 128), B * H)" in text and "BLOCK_M=128, BLOCK_N=64" in text
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / "c"),
                        str(tasks / "col_argmax.py")], capture_output=True, text=True, timeout=60)
    widened = [line.split("\t")[0] for line in r.stdout.splitlines() if "BLOCK_N 16 -> 64" in line]
    assert widened, r.stdout
    text = Path(widened[0]).read_text()
    assert "col_argmax_kernel[(triton.cdiv(n_cols, 64),)]" in text and "BLOCK_N=64" in text
    res = check_task(str(tasks / "col_argmax.py"), device="cpu", seeds=(0,), candidate=widened[0])
    assert res["ok"], res.get("error")


def test_retune_grows_the_warps_with_the_block_when_the_launch_sets_them(tmp_path):
    """block-outputs gives conv1d's launch num_warps=1 (four columns of its
    32-row tile a thread); retune's larger blocks keep that share by growing
    the warps with the block (BLOCK 128 -> 512 at one warp spilled on the
    H200: 2.8 -> 56 ms), and the candidate is still correct. A launch that
    leaves num_warps to Triton keeps the old choices (more warps only from
    4096 up)."""
    blocked = rewrite("block-outputs", ROOT / "bench" / "tasks" / "conv1d.py", tmp_path / "a")[0]
    assert "num_warps=1" in Path(blocked).read_text()
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / "b"), blocked],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[:3]
    assert [line.split("\t")[1].split(": ")[1] for line in first] == [
        "BLOCK 128 -> 512, num_warps 4", "BLOCK 128 -> 2048, num_warps 16", "BLOCK 128 -> 256, num_warps 2"], first
    cand = first[0].split("\t")[0]
    assert "BLOCK=512, _tdx_np=C_out, _TDX_R=32, num_warps=4" in Path(cand).read_text()
    res = check_task(str(ROOT / "bench" / "tasks" / "conv1d.py"), device="cpu", seeds=(0,), candidate=cand)
    assert res["ok"], res
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / "c"),
                        str(ROOT / "bench" / "tasks" / "relu.py")], capture_output=True, text=True, timeout=60)
    assert [line.split("\t")[1].split(": ")[1] for line in r.stdout.splitlines()[:3]] == [
        "BLOCK 256 -> 1024", "BLOCK 256 -> 4096, num_warps 8", "BLOCK 256 -> 512"], r.stdout


def triage_rules(path):
    r = subprocess.run([CLI, "triage", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode in (0, 1), r.stderr
    return [line.split("[")[-1].rstrip("]") for line in r.stdout.splitlines() if line.endswith("]")]


def test_row_division_is_reported_only_where_rows_outlast_a_block(tmp_path):
    """TDX027 names the division and the row loads of row_scale_flat (rows of
    8192 at the bench shape, blocks of 64); with rows of 16 at the bench shape a
    grid of rows would idle three lanes in four, and the rule stays quiet."""
    assert "TDX027" in triage_rules(DATA / "row_scale_flat.py")
    short = tmp_path / "row_scale_short.py"
    flat = (DATA / "row_scale_flat.py").read_text()
    short.write_text(flat.replace('"bench": (4096, 8192)', '"bench": (1 << 20, 16)'))
    assert '"bench": (1 << 20, 16)' in short.read_text()
    assert "TDX027" not in triage_rules(short)


def test_scaled_dot_is_reported_only_off_the_wgmma_register_path(tmp_path):
    """TDX026 stays quiet on attention_fwd (q the first operand of a 128-row dot
    at 8 warps: a wgmma, which reads a loaded q from shared memory and a
    computed one from registers; on the H200 the hoisted q took the register
    form and ran slower). At 2 warps the dots are mma.sync, q in registers
    either way, and the rule names hoist-scale."""
    fwd = ROOT / "tests" / "data" / "triage" / "attention_fwd.py"
    assert "TDX026" not in triage_rules(fwd)
    two = tmp_path / "attention_fwd_w2.py"
    two.write_text(fwd.read_text().replace("num_warps=8, num_stages=3)", "num_warps=2, num_stages=3)"))
    assert "num_warps=2, num_stages=3)" in two.read_text()
    assert "TDX026" in triage_rules(two)


def test_row_grid_masks_the_lanes_past_a_row_and_retunes(tmp_path):
    """row-grid's blocks of a row overhang its end when the row length is not a
    multiple of the block (37 x 65 under blocks of 64): those lanes must be
    masked, or they write the next row's elements with this row's factor.
    retune then changes the block and the grid's literal together, still
    correct."""
    cand = rewrite("row-grid", DATA / "row_scale_flat.py", tmp_path / "a")[0]
    text = Path(cand).read_text()
    assert "_tdx_live = _tdx_col < L" in text and "s = tl.load(s_ptr + row)" in text
    # the element load and the store both skip those lanes (the interpreter runs the programs one
    # after another, so a write into the next row is overwritten there and no check can see it)
    assert "mask=(offs < n) & _tdx_live, other=0.0)" in text and "x * s, mask=(offs < n) & _tdx_live)" in text
    res = check_task(str(DATA / "row_scale_flat.py"), device="cpu", seeds=(0, 1), candidate=cand)
    assert res["ok"], res.get("error")
    bn = rewrite("row-grid", ROOT / "bench" / "tasks" / "batchnorm_infer_fp16.py", tmp_path / "b")[0]
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / "c"), bn],
                       capture_output=True, text=True, timeout=60)
    first = r.stdout.splitlines()[0].split("\t")
    assert first[1].endswith("BLOCK 1024 -> 4096, num_warps 8"), r.stdout
    assert "triton.cdiv((H * W), 4096)" in Path(first[0]).read_text()
    # the tutorials' names for the program and its first offset go with the flat grid
    tut = Path(rewrite("row-grid", DATA / "channel_bias_tutorial.py", tmp_path / "d")[0]).read_text()
    body = tut.split("def channel_bias_kernel")[1].split("def launch")[0]
    assert "pid" not in body and "block_start" not in body, body
    res = check_task(str(ROOT / "bench" / "tasks" / "batchnorm_infer_fp16.py"), device="cpu", seeds=(0,),
                     candidate=first[0])
    assert res["ok"], res.get("error")


def test_retune_widens_the_contiguous_side_first_while_the_grid_keeps_two_waves(tmp_path):
    """A 2-D tile read along its last axis (columns, contiguous) widens that
    side first: col_max after split-reduction has 4096 programs at the bench
    shape, so BLOCK_N 32 -> 128 comes before BLOCK_M, and the candidate still
    passes the check. Its tile is reduced every iteration with 8 elements a
    thread at 4 warps (and at the whole-line step's twice the columns and
    warps), so that step is left out there; after defer-reduction the tile is reduced once,
    after the loop, and that step comes first: 32 fp16 columns read 64 bytes
    a row, BLOCK_N 32 -> 64 with 8 warps. col_argmax's unsplit grid (512
    programs) would drop under a wave at 4x the columns: its rows come first,
    as before, and its tile, reduced every iteration, takes the whole-line
    step once a thread holds 16 of its elements at the new width (128 rows
    and more: 8 at 64 rows)."""
    tasks = ROOT / "bench" / "tasks"
    split = rewrite("split-reduction", tasks / "col_max_fp16.py", tmp_path / "a")[0]
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / "b"), split],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    first = [line.split("\t") for line in r.stdout.splitlines()[:3]]
    assert [f[1].split(": ")[1] for f in first] == [
        "BLOCK_N 32 -> 128", "BLOCK_N 32 -> 64", "BLOCK_M 32 -> 128"], r.stdout
    assert "BLOCK_M=32, BLOCK_N=128" in Path(first[0][0]).read_text()
    deferred = rewrite("defer-reduction", tasks / "col_max_fp16.py", tmp_path / "e")[0]
    (cand, summary), *_ = rewrite_family("retune", deferred, tmp_path / "f")
    assert summary.split(": ")[1] == "BLOCK_N 32 -> 64, num_warps 8 (a whole 128-byte line a row)", summary
    text = Path(cand).read_text()
    assert "BLOCK_M=32, BLOCK_N=64, num_warps=8)" in text and "triton.cdiv(n_cols, 64)" in text, text
    for c in (first[0][0], cand):
        res = check_task(str(tasks / "col_max_fp16.py"), device="cpu", seeds=(0,), candidate=c)
        assert res["ok"], res.get("error")
    r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / "c"),
                        str(tasks / "col_argmax.py")], capture_output=True, text=True, timeout=60)
    first = [line.split("\t") for line in r.stdout.splitlines()]
    got = [f[1].split(": ")[1] for f in first]
    assert got[0] == "BLOCK_M 64 -> 256" and not any("128-byte line" in g for g in got), r.stdout
    assert got[1] == "BLOCK_M 64 -> 128", r.stdout
    for rows, (cand, _) in ((256, first[0]), (128, first[1])):  # whichever of the two the round keeps
        r = subprocess.run([CLI, "rewrite", "--family", "retune", "--out-dir", str(tmp_path / f"d{rows}"), cand],
                           capture_output=True, text=True, timeout=60)
        assert r.stdout.splitlines()[0].split("\t")[1].split(": ")[1] == \
            "BLOCK_N 16 -> 32, num_warps 8 (a whole 128-byte line a row)", r.stdout


def test_retune_leaves_a_whole_line_tile_and_a_one_wave_grid_alone(tmp_path):
    """The whole-line step needs a reduced 2-D tile whose row reads less than
    128 bytes and a grid that keeps a wave once it is that much wider:
    col_mean_bf16 after vectorize-loop reads 64 bf16 columns (128 bytes) a
    row, a 1-D block (col_sum) has no such side, and the deferred col_max at
    a bench shape of 4096 columns has 128 programs (64 at twice the width);
    none gets it."""
    tasks = ROOT / "bench" / "tasks"
    for fam, task in (("vectorize-loop", "col_mean_bf16.py"), ("defer-reduction", "col_sum.py")):
        src = rewrite(fam, tasks / task, tmp_path / fam)[0]
        got = [s for _, s in rewrite_family("retune", src, tmp_path / ("r" + fam))]
        assert got and not any("128-byte line" in s for s in got), got
    deferred = Path(rewrite("defer-reduction", tasks / "col_max_fp16.py", tmp_path / "d")[0])
    text = deferred.read_text()
    assert text.count('"bench": (16384, 16384)') == 1
    narrow = tmp_path / "col_max_narrow.py"
    narrow.write_text(text.replace('"bench": (16384, 16384)', '"bench": (16384, 4096)'))
    got = [s for _, s in rewrite_family("retune", narrow, tmp_path / "narrow")]
    assert got and not any("128-byte line" in s for s in got), got
    got = [s for _, s in rewrite_family("retune", deferred, tmp_path / "wide")]
    assert "128-byte line" in got[0], got


@pytest.mark.parametrize("task", ["conv1d.py", "conv2d.py"])
def test_dot_accumulate_takes_block_outputs_input_channels_through_tl_dot(task, tmp_path):
    """block-outputs leaves conv1d / conv2d adding the outer product of an
    [R, 1] weight column and an input row per input channel; dot-accumulate
    takes the channels 16 at a time through an fp32 tl.dot (the loop over
    the taps stays), and the result still passes the task's check. The
    task's own kernel (a scalar weight) is no outer product: nothing."""
    src = ROOT / "bench" / "tasks" / task
    assert rewrite("dot-accumulate", src, tmp_path / "none") == []
    blocked = rewrite("block-outputs", src, tmp_path / "a")[0]
    cands = rewrite("dot-accumulate", blocked, tmp_path / "b")
    assert len(cands) == 1, cands
    text = Path(cands[0]).read_text()
    assert "for _tdx_c0 in range(0, C_in, _TDX_BK):" in text
    assert "ci = _tdx_c0 + tl.arange(0, _TDX_BK)" in text
    assert 'acc += tl.dot(w, x, input_precision="ieee")' in text
    assert "_TDX_BK=16" in text and "num_warps=4" in text and "num_stages=1" in text
    # the row block widened to 256, the grid with it
    assert "BLOCK=256" in text and ("triton.cdiv(L_out, 256)" in text or "triton.cdiv(H * W, 256)" in text), text
    res = check_task(str(src), device="cpu", seeds=(0, 1), candidate=cands[0])
    assert res["ok"], res.get("error")


@pytest.mark.parametrize("edit", [
    ("dtype=torch.float32, device", "dtype=torch.float16, device"),   # 16-bit inputs
    ("mask=rn < N, other=0.0)", "mask=rn < N, other=1.0)"),           # masked lanes are not zero
    ("acc += a * b", "acc += a * b * k"),                              # k read outside the loads
    ("for k in range(0, K):", "for k in range(0, 8):"),                # fewer than 16 values
    ("BLOCK_M=32, BLOCK_N=64", "BLOCK_M=32, BLOCK_N=8"),               # a row under 16
    ("acc += a * b", "acc += a * b\n        acc = acc * 1.0"),        # the accumulator read again
    ("rn * sbn, mask=rn < N", "rn * sbn + rm[:, None] * 0, mask=rn < N"),  # the row is 2-D
])
def test_dot_accumulate_leaves_other_loops_alone(edit, tmp_path):
    """What dot-accumulate must not take: each edit of matmul_outer.py breaks
    one condition, and the family yields nothing (and TDX024 says nothing)."""
    text = (DATA / "matmul_outer.py").read_text()
    assert edit[0] in text
    bad = tmp_path / "task.py"
    bad.write_text(text.replace(edit[0], edit[1]))
    assert rewrite("dot-accumulate", bad, tmp_path / "out") == []
    r = subprocess.run([CLI, "triage", str(bad)], capture_output=True, text=True, timeout=60)
    assert "TDX024" not in r.stdout, r.stdout
    r = subprocess.run([CLI, "triage", str(DATA / "matmul_outer.py")], capture_output=True, text=True, timeout=60)
    assert "TDX024" in r.stdout, r.stdout


@pytest.mark.parametrize("task,grid,block", [("transpose.py", "triton.cdiv(n_rows, 64)", 256),
                                             ("col_sum.py", "triton.cdiv(n_cols, 64)", 128)])
def test_retune_leaves_a_grid_the_kernel_tiles_by_a_literal(task, grid, block, tmp_path):
    """coalesce writes `row = tl.program_id(0) * 64 + tl.arange(0, 64)` and a
    grid of cdiv(n_rows, 64) beside BLOCK=64, the step of its other loop.
    retune's BLOCK 64 -> 256 used to change the grid's 64 too, leaving three
    quarters of the rows unwritten (rejected on the H200, every suite run);
    the grid is the literal's, not BLOCK's, and stays. (col_sum reduces its
    [BLOCK, 64] tile: 256 rows would be 128 elements a thread, so its first
    block is 128.)"""
    src = ROOT / "bench" / "tasks" / task
    coalesced = rewrite("coalesce", src, tmp_path / "a")[0]
    assert "tl.program_id(0) * 64" in Path(coalesced).read_text()
    cands = rewrite("retune", coalesced, tmp_path / "b")
    text = Path(cands[0]).read_text()
    assert f"BLOCK={block}" in text and grid in text, text
    res = check_task(str(src), device="cpu", seeds=(0,), candidate=cands[0])
    assert res["ok"], res.get("error")


def test_remove_launch_passes_keeps_the_copy_operand_layout_chose(tmp_path):
    """operand-layout passes B K-major through `b.movedim(0, -1).contiguous()
    .movedim(-1, 0)`, a copy made for the tf32 dot. remove-launch-passes took
    it for a stray pass and undid the rewrite (on the H200 a follow-up of
    TDX007 on retune+operand-layout ran 14.8 ms against 4.1). A .contiguous()
    after a re-layout is neither flagged nor removed; a plain one still is."""
    src = ROOT / "bench" / "tasks" / "matmul_fp32_square.py"
    laid = rewrite("operand-layout", src, tmp_path / "a")[0]
    assert ".movedim(0, -1).contiguous()" in Path(laid).read_text()
    assert rewrite("remove-launch-passes", laid, tmp_path / "b") == []
    r = subprocess.run([CLI, "triage", laid], capture_output=True, text=True, timeout=60)
    assert "TDX007" not in r.stdout, r.stdout
    plain = tmp_path / "plain.py"
    plain.write_text(Path(laid).read_text().replace(".movedim(0, -1).contiguous().movedim(-1, 0)",
                                                    ".contiguous()"))
    assert len(rewrite("remove-launch-passes", plain, tmp_path / "c")) == 1
