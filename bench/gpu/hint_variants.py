"""On the GPU machine: what cache hints on the loads and stores of finished
memory-bound kernels are worth. Each file given (a task, or a kernel the suite
kept: TASK.opt.py, which carries the task's make_inputs and SHAPES) is timed
as it is and with every tl.load given eviction_policy="evict_first", or
cache_modifier=".cg" (or, with several loads, only the first one given
evict_first), and every tl.store cache_modifier=".cs" (each added only where the
call has none), on the bench shape with triton.testing.do_bench
(median, L2 flushed by it), beside torch.compile of its torch_impl. A variant
must give the unchanged kernel's output bit for bit.

    python3 bench/gpu/hint_variants.py FILE.py ...     (NO_COMPILE=1: no torch.compile column)
"""
import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import load  # noqa: E402


def calls(text, name):
    """(start of the argument list, index of the closing parenthesis) of each name( call."""
    out, i = [], 0
    while True:
        i = text.find(name + "(", i)
        if i < 0:
            return out
        j, depth, q = i + len(name) + 1, 1, None
        while j < len(text) and depth:
            c = text[j]
            if q:
                q = None if c == q else q
            elif c in "\"'":
                q = c
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            j += 1
        out.append((i + len(name) + 1, j - 1))
        i = j


def add_kwarg(text, name, kw, value, first_only=False):
    """Every name( call without kw= (or the first only) gets kw=value before its closing parenthesis."""
    found = calls(text, name)
    for start, end in reversed(found[:1] if first_only else found):
        if f"{kw}=" in text[start:end]:
            continue
        inner = text[start:end].rstrip()
        sep = "" if inner.endswith(",") else ", "
        text = text[:start] + inner + f"{sep}{kw}={value}" + text[end:]
    return text


def variants(text):
    ef = add_kwarg(text, "tl.load", "eviction_policy", '"evict_first"')
    cs = add_kwarg(text, "tl.store", "cache_modifier", '".cs"')
    yield "as kept", text
    yield "loads evict_first", ef
    if len(calls(text, "tl.load")) > 1:
        yield "first load evict_first", add_kwarg(text, "tl.load", "eviction_policy", '"evict_first"', True)
    yield "loads .cg", add_kwarg(text, "tl.load", "cache_modifier", '".cg"')
    yield "stores .cs", cs
    yield "loads evict_first, stores .cs", add_kwarg(ef, "tl.store", "cache_modifier", '".cs"')


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    print("| kernel | variant | ms | vs as kept | torch.compile ms |")
    print("|---|---|---|---|---|")
    for n, path in enumerate(sys.argv[1:]):
        task = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            text = f.read()
        base = load(text, f"h{n}_base")
        ins = base.make_inputs(base.SHAPES["bench"], device="cuda", seed=0)
        want = base.launch(*ins)
        try:
            if os.environ.get("NO_COMPILE"):
                raise RuntimeError("skipped")
            comp = torch.compile(base.torch_impl)
            comp(*ins)
            t_comp = f"{triton.testing.do_bench(lambda: comp(*ins)):.4f}"
        except Exception as e:  # noqa: BLE001
            t_comp = type(e).__name__
        t0 = None
        for i, (label, vt) in enumerate(variants(text)):
            if i and vt == text:
                print(f"| {task} | {label} | (no call to change) | | |", flush=True)
                continue
            try:
                m = load(vt, f"h{n}_v{i}")
                got = m.launch(*ins)
                same = torch.equal(got, want) if not got.is_floating_point() else \
                    bool(((got == want) | (got.isnan() & want.isnan())).all())
                ms = triton.testing.do_bench(lambda: m.launch(*ins))
                t0 = ms if t0 is None else t0
                print(f"| {task} | {label} | {ms:.4f} | {ms / t0:.3f}{'' if same else ' (output differs)'} "
                      f"| {t_comp if i == 0 else ''} |", flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"| {task} | {label} | {type(e).__name__}: {str(e)[:90]} | | |", flush=True)


if __name__ == "__main__":
    main()
