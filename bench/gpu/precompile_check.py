"""On the GPU machine: does precompile.warm() put each kernel where the JIT
looks, and what does it save in the first launches?

For each task: a fresh Triton cache; the launch's first run on every check
shape and the bench shape, cold (the JIT compiles) and after warm() (it should
find every compile in the cache). Prints one row a task: kernels warm()
compiled and its seconds, the JIT's compiles (cache hits / all) and the
seconds of the first launches, cold and warmed.

    python3 bench/gpu/precompile_check.py [TASK ...]     (names under bench/tasks)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

FIRST = """
import json, sys, time
sys.path.insert(0, {pydir!r})
import torch
from triton import knobs
from tritondx_harness.taskload import load_task
hits = []
knobs.compilation.listener = lambda *, src, metadata, metadata_group, times, cache_hit: hits.append(cache_hit)
task = load_task({task!r})
torch.zeros(1, device="cuda")
secs = 0.0
for shape in {shapes!r}:
    ins = task.inputs(tuple(shape), "cuda", 0)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    task.launch(*ins)
    torch.cuda.synchronize()
    secs += time.perf_counter() - t0
print(json.dumps({{"hits": hits, "seconds": secs}}))
"""


def first_launches(task, shapes, cache):
    env = dict(os.environ, TRITON_CACHE_DIR=cache)
    code = FIRST.format(pydir=os.path.join(ROOT, "python"), task=task, shapes=[list(s) for s in shapes])
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(names):
    from tritondx_harness import precompile
    from tritondx_harness.taskload import load_task
    os.environ["TRITONDX_GPU_LOCK"] = os.path.join(tempfile.mkdtemp(), "gpu.lock")
    print("| task | warm(): kernels, s | cold: JIT hits / compiles, first launches s "
          "| warmed: JIT hits / compiles, first launches s |")
    print("|---|---|---|---|")
    for name in names:
        path = os.path.join(ROOT, "bench", "tasks", name + ".py")
        t = load_task(path)
        shapes = list(t.shapes["check"]) + [t.shapes["bench"]]
        cold = first_launches(path, shapes, tempfile.mkdtemp())
        cache = tempfile.mkdtemp()
        os.environ["TRITON_CACHE_DIR"] = cache
        pre = precompile.warm(path, [path], shapes)
        warmed = first_launches(path, shapes, cache)

        def cell(r):
            if "error" in r:
                return r["error"][:60]
            return f"{sum(r['hits'])} / {len(r['hits'])}, {r['seconds']:.2f}"
        print(f"| {name} | {pre['kernels']} ({pre['failed']} failed), {pre['seconds']:.2f}"
              f"{' ' + pre['error'] if pre['error'] else ''} | {cell(cold)} | {cell(warmed)} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["col_max_fp16", "softmax_long", "matmul_fp16_square", "attention_causal_fp16",
                          "conv1d", "layernorm"])
