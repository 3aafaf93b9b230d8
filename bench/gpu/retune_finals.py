"""On the GPU machine: what one more retune would give the kernels the suite
kept. For each file given (a TASK.opt.py from a suite run, or a task), every
candidate of the built-in retune family ($TDX rewrite --family retune) is
timed beside the kernel as given on the bench shape with
triton.testing.do_bench (median, L2 flushed by it); a candidate whose output
is not close to the kernel's (max |difference| over max |output| above 1e-3)
is marked.

    TDX=build/tritondx python3 bench/gpu/retune_finals.py FILE.py ...
"""
import os
import subprocess
import sys
import tempfile

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from variant_util import load  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TDX = os.environ.get("TDX", os.path.join(ROOT, "build", "tritondx"))


def candidates(path, family="retune"):
    d = tempfile.mkdtemp()
    r = subprocess.run([TDX, "rewrite", "--family", family, "--out-dir", d, path],
                       capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if "\t" in line:
            f, summary = line.split("\t", 1)
            yield summary.split(": ", 1)[-1], f


def main():
    print("| kernel | variant | ms | vs as kept |")
    print("|---|---|---|---|")
    for n, path in enumerate(sys.argv[1:]):
        task = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            base = load(f.read(), f"r{n}_base")
        ins = base.make_inputs(base.SHAPES["bench"], device="cuda", seed=0)
        want = base.launch(*ins).float()
        t0 = triton.testing.do_bench(lambda: base.launch(*ins))
        print(f"| {task} | as kept | {t0:.4f} | 1.000 |", flush=True)
        for i, (label, cpath) in enumerate(candidates(path)):
            try:
                with open(cpath) as f:
                    m = load(f.read(), f"r{n}_c{i}")
                got = m.launch(*ins).float()
                err = ((got - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()
                ms = triton.testing.do_bench(lambda: m.launch(*ins))
                print(f"| {task} | {label} | {ms:.4f} | {ms / t0:.3f}{'' if err <= 1e-3 else f' (differs {err:.1e})'} |",
                      flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"| {task} | {label} | {type(e).__name__}: {str(e)[:90]} | |", flush=True)


if __name__ == "__main__":
    main()
