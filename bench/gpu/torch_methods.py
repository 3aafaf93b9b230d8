"""On the GPU machine: does torch.compile's time depend on how it is timed?

The suite's torch columns come from a cache filled by `time --torch-only`
(torch.compile timed alone, in another process, on another day); the
confirm's `--beside-torch` times it run by run among the task's kernels. On
the H200 (twenty-sixth session) the two disagreed by 2-11 % on the same
tasks. For each task this times, in one process on the harness's inputs
(rotated copies, CUDA event pairs, batches for short calls):

  alone        torch.compile alone (the cache's method)
  beside task  torch.compile interleaved with the task's launch (the confirm's)
  beside eager torch.compile interleaved with torch eager
  alone again  torch.compile alone once more (drift within the process)

and prints the medians (ms) and each over the first.

    python3 bench/gpu/torch_methods.py TASK ...      # names under bench/tasks, without .py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))


def main():
    import torch
    from tritondx_harness.common import bench_shape
    from tritondx_harness.gpu import device_info, estimate_ms, time_interleaved
    from tritondx_harness.stats import batching, repetitions, summarize
    from tritondx_harness.taskload import load_task
    from tritondx_harness.timing import rotated, torch_baseline, torch_precision

    print("| task | alone | beside task | beside eager | alone again | task | eager | beside task / alone |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sys.argv[1:]:
        task = load_task(os.path.join(ROOT, "bench", "tasks", name + ".py"))
        inputs = task.inputs(bench_shape(task), "cuda", 0)
        arg_sets, _ = rotated(torch, inputs, device_info(), 4.0)
        fn, _ = torch_baseline(task)

        def no_grad(f):
            def call(*a):
                with torch.no_grad():
                    return f(*a)
            return call
        with torch_precision(getattr(task.module, "TORCH_TF32", None)):
            eager = no_grad(fn)
            compiled = no_grad(torch.compile(fn))
            compiled(*inputs)
            torch.cuda.synchronize()
            est = max(estimate_ms(f, inputs) for f in (compiled, task.launch, eager))
            batch, reps = batching(est, repetitions(est, 300.0))

            def med(fns):
                t = time_interleaved(fns, reps, 5, arg_sets, batch)
                return {k: summarize(v)["median_ms"] for k, v in t.items()}
            a = med({"c": compiled})["c"]
            bt = med({"c": compiled, "t": task.launch})
            be = med({"c": compiled, "e": eager})
            a2 = med({"c": compiled})["c"]
        print(f"| {name} | {a:.4f} | {bt['c']:.4f} | {be['c']:.4f} | {a2:.4f} | {bt['t']:.4f} | {be['e']:.4f} "
              f"| {bt['c'] / a:.3f} |", flush=True)
        del inputs, arg_sets
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
