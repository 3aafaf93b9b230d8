"""What the GPU variant scripts share: a kernel made by chained rewrites of
the binary, a kernel's text loaded as a module, a text edit that must apply,
and one timed row of a variants table."""
import importlib.util
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TDX = os.environ.get("TDX", os.path.join(ROOT, "build", "tritondx"))


def rewrite(family, path, pick=1):
    """The text of candidate number pick (from 1) of a built-in family on a task file."""
    d = tempfile.mkdtemp()
    r = subprocess.run([TDX, "rewrite", "--family", family, "--out-dir", d, path],
                       capture_output=True, text=True, check=True)
    lines = r.stdout.splitlines()
    if len(lines) < pick:
        raise SystemExit(f"{family} made {len(lines)} candidates on {path}, not {pick}")
    with open(lines[pick - 1].split("\t")[0]) as f:
        return f.read()


def chain(path, *steps):
    """The text made by rewriting the task file at path with each step in turn:
    a step is a family name (its first candidate) or (family, pick)."""
    text = None
    for step in steps:
        family, pick = (step, 1) if isinstance(step, str) else step
        text = rewrite(family, path, pick)
        with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
            f.write(text)
        path = f.name
    return text


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


def time_variants(task, variants, ins, want, kept_ms, torch_ms):
    """A row per (name, text) of variants: the text loaded as a module and its
    launch timed (time_row); a variant that does not load is a row saying so."""
    for i, (name, text) in enumerate(variants):
        try:
            mod = load(text, f"{task}_v{i}")
        except Exception as e:  # noqa: BLE001 - a variant that does not load is a row
            print(f"| {task} | {name} | failed to load: {type(e).__name__}: {e} | | | |")
            continue
        time_row(task, name, mod.launch, ins, want, kept_ms, torch_ms)


def check_variant(label, text, mod_name, task_mod, same, repeat=1):
    """One --check line: the variant text loaded and launched through the
    interpreter at each check shape of task_mod (repeat times over), each
    result held to same(got, inputs) (raises when it differs); prints
    `label: ok` or why not. Returns 0 when ok, 1 when not."""
    try:
        var = load(text, mod_name)
        for _ in range(repeat):
            for shape in task_mod.SHAPES["check"]:
                ins = task_mod.make_inputs(shape, device="cpu")
                if not same(var.launch(*ins), ins):
                    raise AssertionError(f"differs at {shape}")
        print(f"{label}: ok")
        return 0
    except Exception as e:  # noqa: BLE001 - every variant gets its line
        print(f"{label}: {type(e).__name__}: {e}")
        return 1


def variant_files(paths):
    """Print the variants table's header; then (index, task name, text) of each file."""
    print("| kernel | variant | ms | vs kept | torch ms | max abs diff |")
    print("|---|---|---|---|---|---|")
    for n, path in enumerate(paths):
        with open(path) as f:
            yield n, os.path.basename(path).split(".")[0], f.read()


def compile_header():
    """The header of a variants table whose torch column is torch.compile's."""
    print("| kernel | variant | ms | vs kept | torch.compile ms | max abs diff |")
    print("|---|---|---|---|---|---|")


def beside_torch(task, text, label):
    """The kernel of text (a task file's source) timed beside torch eager and
    torch.compile of its torch_impl at the bench shape; prints the eager row
    and the kernel's, named label (after compile_header's). Returns (module,
    bench inputs, its output, its ms, torch.compile ms)."""
    import torch
    import triton
    mod = load(text, task + "_kept")
    ins = mod.make_inputs(mod.SHAPES["bench"], device="cuda")
    eager_ms = triton.testing.do_bench(lambda: mod.torch_impl(*ins), warmup=25, rep=200)
    compiled = torch.compile(mod.torch_impl)
    compiled(*ins)
    compile_ms = triton.testing.do_bench(lambda: compiled(*ins), warmup=25, rep=200)
    print(f"| {task} | torch eager | {eager_ms:.4f} | | | |")
    want = mod.launch(*ins)
    ms = time_row(task, label, mod.launch, ins, want, None, compile_ms)
    return mod, ins, want, ms, compile_ms


def kept_beside_torch(task, steps):
    """The task's kept kernel rebuilt by chaining steps on bench/tasks/TASK.py,
    timed beside torch (beside_torch). Returns (kept_text, kept module, bench
    inputs, kept output, kept ms, torch.compile ms)."""
    kept_text = chain(os.path.join(ROOT, "bench", "tasks", task + ".py"), *steps)
    return (kept_text,) + beside_torch(task, kept_text, "as kept (" + "+".join(steps) + ")")
