"""On the GPU machine: the memory-bound tasks that read 1-2 % behind
torch.compile with their kernels at 97-100 % of the floor (the twenty-third
session's H100 suite: elementwise_add, relu, row_sum, row_argmax). For each,
the task's kernel beside torch eager and torch.compile of its torch_impl,
variants of the knobs that could make that difference (no mask when the size
divides the block, the block and warps, loads that evict first), and the
Triton source Inductor generated for torch.compile (what it does that the task
does not). Timed with triton.testing.do_bench (median ms); the torch.compile
column is the same for every row of a task.

    python3 bench/gpu/tie_variants.py [TASK ...]
    TRITON_INTERPRET=1 python3 bench/gpu/tie_variants.py --check   # here: every variant
        # runs through the interpreter at each task's check shapes and matches the task
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import ROOT, beside_torch, check_variant, compile_header, load, sub, time_variants  # noqa: E402


def unmasked(text, kernel_sig, even_expr, masks):
    """The kernel with an EVEN constexpr: masks (the `mask=...` texts of its
    loads and stores) dropped when EVEN, which the launch sets to even_expr."""
    text = sub(text, kernel_sig + ", BLOCK: tl.constexpr):", kernel_sig + ", BLOCK: tl.constexpr, EVEN: tl.constexpr):")
    for m in masks:
        text = sub(text, m, m.replace("mask=", "mask=None if EVEN else ", 1))
    return sub(text, "BLOCK=", f"EVEN={even_expr}, BLOCK=")


def launch_kw(text, old, new):
    """The launch's keywords old replaced by new."""
    return sub(text, old, new)


def variants_of(task, t):
    if task == "elementwise_add":
        return [
            ("no mask (EVEN: n % 1024 == 0)",
             unmasked(t, "def add_kernel(x_ptr, y_ptr, z_ptr, n", "n % 1024 == 0", ["mask=mask)"])),
            ("BLOCK 2048, 8 warps", launch_kw(t, "cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)",
                                              "cdiv(n, 2048),)](x, y, z, n, BLOCK=2048, num_warps=8)")),
            ("BLOCK 4096, 8 warps", launch_kw(t, "cdiv(n, 1024),)](x, y, z, n, BLOCK=1024)",
                                              "cdiv(n, 4096),)](x, y, z, n, BLOCK=4096, num_warps=8)")),
            ("loads evict_first", sub(sub(t, "x_ptr + offs, mask=mask)", "x_ptr + offs, mask=mask, eviction_policy=\"evict_first\")"),
                                      "y_ptr + offs, mask=mask)", "y_ptr + offs, mask=mask, eviction_policy=\"evict_first\")")),
        ]
    if task == "relu":
        b1024 = launch_kw(t, "cdiv(n, 256),)](x, y, n, BLOCK=256)", "cdiv(n, 1024),)](x, y, n, BLOCK=1024)")
        return [
            ("BLOCK 1024", b1024),
            ("BLOCK 1024, no mask (EVEN)", unmasked_all(b1024, "def relu_kernel(x_ptr, y_ptr, n", "n % 1024 == 0")),
            ("BLOCK 4096, 8 warps", launch_kw(t, "cdiv(n, 256),)](x, y, n, BLOCK=256)",
                                              "cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=8)")),
            ("no mask (EVEN) at 256", unmasked_all(t, "def relu_kernel(x_ptr, y_ptr, n", "n % 256 == 0")),
        ]
    if task in ("row_sum", "row_argmax"):
        kern = "def row_sum_kernel(x_ptr, y_ptr, n_cols, stride_row" if task == "row_sum" else \
            "def row_argmax_kernel(x_ptr, y_ptr, n_cols"
        other = "other=0.0)" if task == "row_sum" else "other=-float(\"inf\"))"
        even = unmasked(t, kern, "n_cols % 1024 == 0", ["mask=offs < n_cols, " + other])
        return [
            ("no mask (EVEN: n_cols % 1024 == 0)", sub(even, "mask=None if EVEN else offs < n_cols, " + other,
                                                       "mask=None if EVEN else offs < n_cols, "
                                                       + other.replace("other=", "other=None if EVEN else "))),
            ("BLOCK 2048", launch_kw(t, "BLOCK=1024)", "BLOCK=2048)")),
            ("BLOCK 2048, 8 warps", launch_kw(t, "BLOCK=1024)", "BLOCK=2048, num_warps=8)")),
            ("BLOCK 8192, 8 warps", launch_kw(t, "BLOCK=1024)", "BLOCK=8192, num_warps=8)")),
            ("BLOCK 1024, 2 warps", launch_kw(t, "BLOCK=1024)", "BLOCK=1024, num_warps=2)")),
        ]
    raise SystemExit(f"no variants for {task}")


def unmasked_all(text, kernel_sig, even_expr):
    """unmasked with every `mask=mask` of the kernel."""
    text = sub(text, kernel_sig + ", BLOCK: tl.constexpr):", kernel_sig + ", BLOCK: tl.constexpr, EVEN: tl.constexpr):")
    text = text.replace("mask=mask", "mask=None if EVEN else mask")
    return sub(text, "BLOCK=", f"EVEN={even_expr}, BLOCK=")


def inductor_source(fn, ins):
    """The Triton kernels Inductor generated for fn on ins (their source as
    torch.compile wrote it), or a line saying why not."""
    try:
        import torch
        from torch._inductor.utils import run_and_get_code
        torch._dynamo.reset()
        _, codes = run_and_get_code(torch.compile(fn), *ins)
    except Exception as e:  # noqa: BLE001 - a report, not a stop
        return f"(no source: {type(e).__name__}: {e})"
    out = []
    for code in codes:
        for m in re.finditer(r"async_compile\.triton\('([^']+)', '''(.*?)'''", code, re.S):
            body = [ln for ln in m.group(2).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
            out.append(f"--- {m.group(1)}\n" + "\n".join(body))
    return "\n".join(out) or "(no Triton kernel in the generated code)"


TASKS = ["elementwise_add", "relu", "row_sum", "row_argmax"]


def check(tasks):
    """Every variant through the interpreter (TRITON_INTERPRET=1) at each check
    shape, against the task's own launch; a row per variant, non-zero exit on
    any mismatch or failure."""
    import torch
    bad = 0
    for task in tasks:
        with open(os.path.join(ROOT, "bench", "tasks", task + ".py")) as f:
            text = f.read()
        mod = load(text, task + "_task")
        for i, (name, vt) in enumerate(variants_of(task, text)):
            bad += check_variant(f"{task}: {name}", vt, f"{task}_c{i}", mod,
                                 lambda got, ins, mod=mod: torch.equal(got, mod.launch(*ins)))
    return 1 if bad else 0


def main():
    if sys.argv[1:2] == ["--check"]:
        raise SystemExit(check(sys.argv[2:] or TASKS))
    import torch
    tasks = sys.argv[1:] or TASKS
    compile_header()
    sources = []
    for task in tasks:
        with open(os.path.join(ROOT, "bench", "tasks", task + ".py")) as f:
            text = f.read()
        mod, ins, want, task_ms, compile_ms = beside_torch(task, text, "the task")
        time_variants(task, variants_of(task, text), ins, want, task_ms, compile_ms)
        sources.append((task, inductor_source(mod.torch_impl, ins)))
        del ins, want
        torch.cuda.empty_cache()
    for task, src in sources:
        print(f"\n### {task}: Inductor's kernels\n")
        print(src)


if __name__ == "__main__":
    main()
