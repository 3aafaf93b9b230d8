"""On the GPU machine: how much of a short kernel's timed interval is the
host's launch path. For each file given (a task, or a kernel the suite kept),
launch() on the bench shape is timed four ways, all on the harness's rotated
input copies (L2 cold as in `tritondx time`):

  per call   one CUDA event pair around each call (the harness's method,
             gpu.time_interleaved): the GPU idles while Python enqueues
  batched    one event pair around k consecutive calls, k such that a batch
             runs >= 1 ms; the host enqueues while the GPU runs the previous
  do_bench   triton.testing.do_bench (its own L2 flush), for reference
  host       the host's wall time of one call without synchronising

    python3 bench/gpu/timing_batch.py FILE.py ...
"""
import math
import os
import statistics
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from variant_util import load  # noqa: E402
from tritondx_harness import gpu, timing  # noqa: E402


def batched(fn, arg_sets, reps, k):
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for i in range(3):
        fn(*arg_sets[i % len(arg_sets)])
    torch.cuda.synchronize()
    n = 0
    for s, e in ev:
        s.record()
        for _ in range(k):
            fn(*arg_sets[n % len(arg_sets)])
            n += 1
        e.record()
    torch.cuda.synchronize()
    return [s.elapsed_time(e) / k for s, e in ev]


def main():
    print("| kernel | per call ms (IQR %) | batched ms (k) | do_bench ms | host µs a call |")
    print("|---|---|---|---|---|")
    info = gpu.device_info()
    for n, path in enumerate(sys.argv[1:]):
        name = os.path.basename(path).split(".")[0] + (" (kept)" if ".opt." in path else "")
        with open(path) as f:
            mod = load(f.read(), f"tb{n}")
        ins = mod.make_inputs(mod.SHAPES["bench"], device="cuda", seed=0)
        fn = mod.launch
        fn(*ins)
        torch.cuda.synchronize()
        arg_sets, _ = timing.rotated(torch, ins, info, 4)
        per = gpu._time_interleaved({"f": fn}, 200, 5, arg_sets)["f"]
        med = statistics.median(per)
        q = statistics.quantiles(per, n=4)
        k = max(1, math.ceil(1.0 / max(med, 1e-3)))
        bat = statistics.median(batched(fn, arg_sets, 50, k))
        db = triton.testing.do_bench(lambda: fn(*ins), warmup=25, rep=200)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(20):
            fn(*arg_sets[i % len(arg_sets)])
        host = (time.perf_counter() - t0) / 20 * 1e6
        torch.cuda.synchronize()
        print(f"| {name} | {med:.4f} ({100 * (q[2] - q[0]) / med:.1f}) | {bat:.4f} ({k}) | {db:.4f} | {host:.0f} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
