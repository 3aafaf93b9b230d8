"""On the GPU machine: the Triton code torch.compile (Inductor) generates for
a task's torch_impl at its bench shape, and the launch it chose, so a gap
to torch.compile can be read kernel against kernel.

For each task: $OUT/inductor/TASK.py holds Inductor's output code (every
kernel, its heuristics and the wrapper that launches it); for each kernel
the config its autotuning kept (block sizes, num_warps, num_stages) and
the configs it chose among, where Inductor exposes them.

    python3 bench/gpu/inductor_code.py TASK ...   # names under bench/tasks, without .py

(DEVICE=cpu: a dry run here at the largest check shape, Inductor's C++ for
the CPU and no configs.)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))


def kept_configs():
    """(id, kernel name, kept config, the configs autotuning chose among)
    of every Triton kernel Inductor has run in this process."""
    import gc
    import warnings
    from torch._inductor.runtime import triton_heuristics as th
    out = []
    with warnings.catch_warnings():  # touching some module objects warns of deprecations
        warnings.simplefilter("ignore")
        for obj in gc.get_objects():
            try:  # gc also lists dead weak proxies: isinstance on one raises
                if not isinstance(obj, th.CachingAutotuner) or not getattr(obj, "launchers", None):
                    continue
                name = getattr(obj.fn, "__name__", "?")
                cfgs = [str(getattr(launcher, "config", "?")) for launcher in obj.launchers]
                among = [str(c) for c in getattr(obj, "configs", None) or []]
            except ReferenceError:
                continue
            out.append((id(obj), name, "; ".join(cfgs), among))
    return out


def main():
    import torch
    from torch._inductor.utils import run_and_get_code
    from tritondx_harness.common import bench_shape
    from tritondx_harness.taskload import load_task
    from tritondx_harness.timing import cpu_shape, torch_baseline, torch_precision

    dest = os.path.join(os.environ.get("OUT", "/tmp"), "inductor")
    os.makedirs(dest, exist_ok=True)
    seen = set()  # the autotuners printed for an earlier task (they live on)
    for name in sys.argv[1:]:
        task = load_task(os.path.join(ROOT, "bench", "tasks", name + ".py"))
        device = os.environ.get("DEVICE", "cuda")
        inputs = task.inputs(bench_shape(task) if device == "cuda" else cpu_shape(task), device, 0)
        fn, which = torch_baseline(task)
        torch._dynamo.reset()
        with torch.no_grad(), torch_precision(getattr(task.module, "TORCH_TF32", None)):
            _, codes = run_and_get_code(torch.compile(fn), *inputs)
        with open(os.path.join(dest, name + ".py"), "w") as f:
            f.write("\n\n# ---- next module ----\n\n".join(codes))
        print(f"== {name} ({which}): {len(codes)} module(s), {sum(c.count('@triton.jit') for c in codes)} kernel(s)")
        for key, kname, cfg, among in kept_configs():
            if key not in seen:
                print(f"   {kname}: kept {cfg}")
                print(f"      among {len(among)}: {' | '.join(among)}")
                seen.add(key)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
