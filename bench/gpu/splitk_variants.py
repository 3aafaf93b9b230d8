"""On the GPU machine: split-k (matmul_fp16_small_m) and split-reduction
(col_max_fp16) as the families write them -- partial results combined with
atomics into a filled fp32 buffer, which launch then copies into the output
(two more kernels: the fill and the copy) -- against one kernel that
combines the partials itself: each program stores its partial into its own
slab of an fp32 workspace (torch.empty, no kernel), counts itself in a
per-tile counter, and the program that counts last adds the slabs in a fixed
order, stores the output and sets the counter back to zero for the next
launch (the counters are zeroed once and kept). Timed with
triton.testing.do_bench (median ms) beside torch.compile.

    python3 bench/gpu/splitk_variants.py
    TRITON_INTERPRET=1 python3 bench/gpu/splitk_variants.py --check   # here: every
        # variant through the interpreter at each task's check shapes, against the task
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import ROOT, beside_torch, chain, check_variant, compile_header, load, sub, time_variants  # noqa: E402

COUNTERS = '''
_tdx_counters = {}


def _tdx_zeroed_counters(n, device):
    """n int32 counters on device, zero between launches (the last program of
    each tile sets its counter back)."""
    buf = _tdx_counters.get(str(device))
    if buf is None or buf.numel() < n:
        buf = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)
        _tdx_counters[str(device)] = buf
    return buf


def launch('''


# the last program combines the slabs: {combine} is how one more slab joins acc
TAIL = """    _tdx_offs = {offs}
    _tdx_mask = {mask}
    tl.store(ws_ptr + _tdx_pid_k * ws_span + _tdx_offs, acc, mask=_tdx_mask)
    tl.debug_barrier()
    _tdx_tile = tl.program_id(0) + tl.num_programs(0) * tl.program_id(1)
    if tl.atomic_add(cnt_ptr + _tdx_tile, 1) == _tdx_split_k - 1:
        acc = tl.load(ws_ptr + _tdx_offs, mask=_tdx_mask, other=0.0, cache_modifier=".cg")
        for _tdx_s in range(1, _tdx_split_k):
            acc {combine}
        tl.store({out} + _tdx_offs, acc.to({out}.dtype.element_ty), mask=_tdx_mask)
        tl.atomic_xchg(cnt_ptr + _tdx_tile, 0)
"""
TAIL_SUM = TAIL.replace("{combine}", "+= tl.load(ws_ptr + _tdx_s * ws_span + _tdx_offs, mask=_tdx_mask, other=0.0, "
                                    "cache_modifier=\".cg\")")
TAIL_MAX = TAIL.replace("{combine}", "= tl.maximum(acc, tl.load(ws_ptr + _tdx_s * ws_span + _tdx_offs, mask=_tdx_mask, "
                                    "other=0.0, cache_modifier=\".cg\"))")


def semaphore_mm(text):
    """The split-k candidate text with its atomics replaced by slabs and a
    per-tile counter."""
    text = sub(text, "stride_cm, stride_cn,\n", "stride_cm, stride_cn, ws_ptr, ws_span, cnt_ptr,\n")
    text = re.sub(r"    c = acc\.to\(c_ptr\.dtype\.element_ty\)\n    tl\.atomic_add\(c_ptr \+ rm\[:, None\] \* stride_cm \+ "
                  r"rn\[None, :\] \* stride_cn, acc,\n\s+mask=\(rm\[:, None\] < M\) & \(rn\[None, :\] < N\), sem=\"relaxed\"\)\n",
                  lambda m: TAIL_SUM.format(offs="rm[:, None] * stride_cm + rn[None, :] * stride_cn",
                                        mask="(rm[:, None] < M) & (rn[None, :] < N)", out="c_ptr"), text)
    if "_tdx_tile" not in text:
        raise SystemExit("split-k tail not found")
    text = sub(text, "\ndef launch(", COUNTERS)
    text = re.sub(r"    _tdx_acc = .*\n", "    _tdx_span = 1 + sum((d - 1) * s for d, s in zip(c.shape, c.stride()))\n"
                  "    _tdx_ws = torch.empty((grid[2], _tdx_span), dtype=torch.float32, device=c.device)\n"
                  "    _tdx_cnt = _tdx_zeroed_counters(grid[0] * grid[1], c.device)\n", text)
    text = sub(text, "(a, b, _tdx_acc, ", "(a, b, c, ")
    text = sub(text, "c.stride(0), c.stride(1), BLOCK_M", "c.stride(0), c.stride(1), _tdx_ws, _tdx_span, _tdx_cnt, BLOCK_M")
    return sub(text, "    if _tdx_acc is not c:\n        c.copy_(_tdx_acc)\n", "")




def semaphore_colmax(text):
    """The split-reduction candidate text with atomic_max replaced by slabs
    and a per-tile counter."""
    text = sub(text, "n_rows, n_cols, BLOCK_M: tl", "n_rows, n_cols, ws_ptr, ws_span, cnt_ptr, BLOCK_M: tl")
    text = sub(text, '    tl.atomic_max(y_ptr + cols, acc, mask=cols < n_cols, sem="relaxed")\n',
               TAIL_MAX.format(offs="cols", mask="cols < n_cols", out="y_ptr"))
    text = sub(text, "\ndef launch(", COUNTERS)
    m = re.search(r"    col_max_kernel\[\((triton\.cdiv\(n_cols, \d+\)), 1, (\d+)\)\]\(x, _tdx_acc, n_rows, n_cols, ", text)
    if not m:
        raise SystemExit("split-reduction launch not found")
    text = re.sub(r"    _tdx_acc = .*\n", "    _tdx_ws = torch.empty((%s, n_cols), dtype=torch.float32, device=y.device)\n"
                  "    _tdx_cnt = _tdx_zeroed_counters(%s, y.device)\n" % (m.group(2), m.group(1)), text)
    text = sub(text, "(x, _tdx_acc, n_rows, n_cols, ", "(x, y, n_rows, n_cols, _tdx_ws, n_cols, _tdx_cnt, ")
    return sub(text, "    if _tdx_acc is not y:\n        y.copy_(_tdx_acc)\n", "")


def cases():
    """(task, [(name, atomic text, semaphore text by hand, the family's one-kernel form)])."""
    mm = os.path.join(ROOT, "bench", "tasks", "matmul_fp16_small_m.py")
    cm = os.path.join(ROOT, "bench", "tasks", "col_max_fp16.py")
    out = []
    rows = []
    for sk, label in ((1, "S=4"), (2, "S=2"), (3, "S=8")):
        for rt in (1, 2, 3, 4):
            t = chain(mm, ("split-k", sk + 3), ("retune", rt))
            tiles = re.search(r"BLOCK_M=(\d+), BLOCK_N=(\d+), BLOCK_K=(\d+).*num_warps=(\d+), num_stages=(\d+)", t)
            name = f"{label} {'x'.join(tiles.groups()[:3])} w{tiles.group(4)} s{tiles.group(5)}"
            rows.append((name, t, semaphore_mm(t), chain(mm, ("split-k", sk), ("retune", rt))))
    out.append(("matmul_fp16_small_m", rows))
    rows = []
    for sr, label in ((1, "S=8"), (2, "S=32"), (3, "S=4")):
        for rt in (None, 1, 2):
            tail = ["defer-reduction"] + ([("retune", rt)] if rt else [])
            t = chain(cm, ("split-reduction", sr), *tail)
            blk = re.search(r"BLOCK_M=(\d+), BLOCK_N=(\d+)(.*)\)", t)
            rows.append((f"{label} {blk.group(1)}x{blk.group(2)}{blk.group(3)}", t, semaphore_colmax(t),
                         chain(cm, ("split-reduction", sr + 3), *tail)))
    out.append(("col_max_fp16", rows))
    return out


def check():
    import torch
    bad = 0
    for task, rows in cases():
        with open(os.path.join(ROOT, "bench", "tasks", task + ".py")) as f:
            mod = load(f.read(), task + "_task")
        for i, (name, at, sem, fam) in enumerate(rows):
            for kind, text in (("atomics", at), ("one kernel", sem), ("family's one kernel", fam)):
                # twice: the counters must be back at zero after a launch
                bad += check_variant(f"{task}: {name} {kind}", text, f"{task}_c{i}_{kind[0]}", mod,
                                     lambda got, ins, mod=mod: torch.allclose(got.double(), mod.reference(*ins),
                                                                              rtol=2e-2, atol=2e-2), repeat=2)
    return 1 if bad else 0


def main():
    if sys.argv[1:2] == ["--check"]:
        raise SystemExit(check())
    import torch
    compile_header()
    for task, rows in cases():
        with open(os.path.join(ROOT, "bench", "tasks", task + ".py")) as f:
            text = f.read()
        _, ins, want, task_ms, compile_ms = beside_torch(task, text, "the task")
        variants = []
        for name, at, sem, fam in rows:
            variants += [(name + " atomics", at), (name + " one kernel", sem), (name + " family's one kernel", fam)]
        time_variants(task, variants, ins, want.float(), task_ms, compile_ms)
        del ins, want
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
