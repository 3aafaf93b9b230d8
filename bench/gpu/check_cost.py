"""On the GPU machine: what a candidate's check costs, and the two steps
moved to the GPU (outputs compared in float64 slices on their device, the
child's non-finite test before the copy to the host).

1. For each task, the `trial` verb with the task as its own candidate (as
   the loop's baseline does), REPS times one after the other, nothing else
   running: the call's wall seconds, the check's parts (phases_s: precompile,
   child, judge; start = the call's seconds before the check began) and
   the timing's seconds.
2. At each task's bench shape: the comparison of the task's output with
   its reference on the GPU (as the judge does now) and on the CPU (as it
   did: the whole output copied to the host in float64), and the
   non-finite test on the GPU and on the CPU with one thread (the child's).

    python3 bench/gpu/check_cost.py [TASK ...]     (default: four tasks)
"""
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
TASKS = sys.argv[1:] or ["groupnorm", "rmsnorm_bf16", "softmax_long", "matmul_fp32_square"]
REPS = int(os.environ.get("REPS", "2"))


def trial(path):
    """One trial call: (wall s, its reply)."""
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "tritondx_harness", "trial", "--task", path, "--candidate", path,
                        "--device", "cuda", "--bench-shape"], capture_output=True, text=True,
                       cwd=os.path.join(ROOT, "python"))
    wall = time.monotonic() - t0
    try:
        return wall, json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return wall, {"ok": False, "error": (r.stderr or r.stdout)[-300:]}


def timed(fn, reps=3):
    """The median seconds of fn() over reps calls."""
    import torch
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2]


def old_compare(out, ref):
    """The comparison as it was: both whole on the host in float64."""
    import torch
    o = out.detach().to("cpu", torch.float64)
    r = ref.detach().to("cpu", torch.float64)
    fin = torch.isfinite(r)
    _ = int((~torch.isfinite(o) & fin).sum())
    of, rf = o[fin], r[fin]
    d = of - rf
    _ = float(torch.linalg.vector_norm(d)), float(torch.linalg.vector_norm(rf)), float(d.abs().max())
    _ = bool((of == of.flatten()[0]).all()), bool((rf == rf.flatten()[0]).all())


def main():
    print("| task | call s | start s | precompile s | child s | judge s | time s | ok |")
    print("|---|---|---|---|---|---|---|---|")
    for name in TASKS:
        path = os.path.join(ROOT, "bench", "tasks", name + ".py")
        for _ in range(REPS):
            wall, rep = trial(path)
            ph = rep.get("phases_s") or {}
            start = wall - (rep.get("check_s") or 0) - (rep.get("time_s") or 0)
            print(f"| {name} | {wall:.1f} | {start:.1f} | {ph.get('precompile', '-')} | {ph.get('child', '-')} | "
                  f"{ph.get('judge', '-')} | {rep.get('time_s')} | {rep.get('ok')} {rep.get('error') or ''} |",
                  flush=True)
    import torch
    from tritondx_harness.check import compare
    from tritondx_harness.common import as_outputs, bench_shape
    from tritondx_harness.isolate import _nonfinite
    from tritondx_harness.taskload import load_task
    print("\n| task | output elements | compare on GPU s | compare on CPU (as it was) s | "
          "non-finite test GPU s | CPU, 1 thread s |")
    print("|---|---|---|---|---|---|")
    for name in TASKS:
        task = load_task(os.path.join(ROOT, "bench", "tasks", name + ".py"))
        ins = task.inputs(bench_shape(task, None), "cuda", 0, None)
        out = as_outputs(task.launch(*ins))[0]
        ref = as_outputs(task.reference(*ins))[0]
        g = timed(lambda: compare(out, ref, 1e-2))
        c = timed(lambda: old_compare(out, ref), reps=1)
        fg = timed(lambda: _nonfinite(out))
        host = out.to("cpu")
        n = torch.get_num_threads()
        torch.set_num_threads(1)
        fc = timed(lambda: _nonfinite(host), reps=1)
        torch.set_num_threads(n)
        print(f"| {name} | {out.numel()} | {g:.3f} | {c:.3f} | {fg:.4f} | {fc:.3f} |", flush=True)
        del ins, out, ref, host
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
