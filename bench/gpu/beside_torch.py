"""On the GPU machine: a suite slice's results timed side by side with torch.

The suite's table compares each result's time (the loop's, from its own
process) with torch columns measured in another process, minutes apart (the
slice's fill, or a cache of an earlier call); a drift of the card between the
two lands in the comparison whole, and 13-19 of the 45 tasks end within 2 %
of torch.compile. For each task folder of a slice (suite.sh's $OUT/suite, or
its suite.tar.gz unpacked) whose row's final time is within BAND of its
torch.compile time either way, this times the task as given, its result
(TASK.opt.py), torch eager and torch.compile of its torch baseline in one
interleaved run, the harness's method (rotated input copies several L2s in
size, CUDA event pairs, batches of calls for short ones, torch.compile warmed
first), and prints both ratios: the table's and the side-by-side one.

    python3 bench/gpu/beside_torch.py DIR [BAND]      # BAND: 0.05 (5 %)
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))


def near_rows(folder, band):
    """(task name, row) of every task folder's results.json whose final time
    is within band of its torch.compile time, sorted by name."""
    out = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name, "results.json")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            rows = json.load(f).get("rows") or []
        for r in rows:
            final, comp = r.get("final_s") or 0, (r.get("compile_ms") or 0) / 1e3
            if final > 0 and comp > 0 and abs(final / comp - 1) <= band:
                out.append((name, r))
    return out


def time_beside(task_path, result_path):
    """{variant: harness summary} of the task, its result, torch eager and
    torch.compile timed in one interleaved run on the bench shape."""
    from tritondx_harness import gpu, stats, timing
    from tritondx_harness.common import bench_shape
    from tritondx_harness.taskload import interpreter, load_task
    torch = gpu.require_cuda()
    with interpreter(False):
        task = load_task(task_path)
        result = load_task(result_path, "candidate", reference_from=task)
    inputs = task.inputs(bench_shape(task, None), "cuda", 0, None)
    arg_sets, _ = timing.rotated(torch, inputs, gpu.device_info(), 4.0)
    fn, _ = timing.torch_baseline(task)
    tf32 = getattr(task.module, "TORCH_TF32", None)

    def as_torch(f):
        def call(*a):
            with timing.torch_precision(tf32), torch.no_grad():
                return f(*a)
        return call
    compiled = as_torch(torch.compile(fn))
    compiled(*arg_sets[0])  # compiles: not timed
    torch.cuda.synchronize()
    fns = {"task": task.launch, "result": result.launch, "eager": as_torch(fn), "compile": compiled}
    est = max(gpu.estimate_ms(f, arg_sets[0]) for f in fns.values())
    batch, reps = stats.batching(est, stats.repetitions(est, 300.0))
    times = gpu.time_interleaved(fns, reps, 5, arg_sets, batch)
    return {k: stats.summarize(v) for k, v in times.items()}


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    folder, band = argv[1], float(argv[2]) if len(argv) > 2 else 0.05
    rows = near_rows(folder, band)
    print(f"{len(rows)} results within {band:.0%} of torch.compile in {folder}\n")
    print("| task | kept | table: final / compile | task ms | result ms | eager ms | compile ms "
          "| side by side: result / compile | result / task |")
    print("|---|---|---|---|---|---|---|---|---|")
    ahead_table = ahead_beside = timed = 0
    for name, r in rows:
        table = r["final_s"] * 1e3 / r["compile_ms"]
        opt = os.path.join(folder, name, name + ".opt.py")
        try:
            s = time_beside(os.path.join(ROOT, "bench", "tasks", name + ".py"), opt)
        except Exception as e:  # noqa: BLE001 - one row's failure is reported, not fatal
            print(f"| {name} | {r.get('kept', 0)} | {table:.3f} | {type(e).__name__}: {str(e)[:120]} | | | | | |")
            continue
        m = {k: v["median_ms"] for k, v in s.items()}
        beside = m["result"] / m["compile"]
        timed += 1
        ahead_table += table < 1
        ahead_beside += beside < 1
        print(f"| {name} | {r.get('kept', 0)} | {table:.3f} | {m['task']:.4f} | {m['result']:.4f} | "
              f"{m['eager']:.4f} | {m['compile']:.4f} | {beside:.3f} | {m['result'] / m['task']:.3f} |")
    print(f"\nahead of torch.compile, of the {timed} timed: {ahead_table} by the table's columns, "
          f"{ahead_beside} side by side")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
