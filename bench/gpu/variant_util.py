"""What the GPU variant scripts share: a kernel's text loaded as a module,
a text edit that must apply, and one timed row of a variants table."""
import importlib.util
import os
import sys
import tempfile


def load(text, name):
    """The module whose source is text, written to a fresh temporary folder."""
    d = tempfile.mkdtemp()
    path = os.path.join(d, name + ".py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sub(text, old, new):
    """text with old replaced by new; exits when old is not there."""
    if old not in text:
        raise SystemExit(f"variant edit not found: {old!r}")
    return text.replace(old, new)


def time_row(task, name, run, ins, want, kept_ms, torch_ms, warmup=25, rep=200):
    """Time run(*ins) with do_bench and print its table row (ms, ratio to
    kept_ms or to itself, torch_ms, max |difference| from want); a variant
    that raises is a row saying so. Returns its ms, or None."""
    import torch
    import triton
    try:
        got = run(*ins)
        torch.cuda.synchronize()
        diff = (got.float() - want.float()).abs().max().item()
        ms = triton.testing.do_bench(lambda: run(*ins), warmup=warmup, rep=rep)
        print(f"| {task} | {name} | {ms:.4f} | {ms / (kept_ms or ms):.3f} | {torch_ms:.4f} | {diff:.3g} |")
    except Exception as e:  # noqa: BLE001 - a variant that does not build is a row, not a stop
        ms = None
        print(f"| {task} | {name} | failed: {type(e).__name__}: {str(e).splitlines()[0][:120]} | | | |")
    sys.stdout.flush()
    return ms


def variant_files(paths):
    """Print the variants table's header; then (index, task name, text) of each file."""
    print("| kernel | variant | ms | vs kept | torch ms | max abs diff |")
    print("|---|---|---|---|---|---|")
    for n, path in enumerate(paths):
        with open(path) as f:
            yield n, os.path.basename(path).split(".")[0], f.read()
