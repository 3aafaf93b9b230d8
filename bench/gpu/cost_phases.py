"""Seconds of each step one candidate's check and timing go through, in one
process: interpreter and imports, CUDA start, the first launch (compile) at
a check shape, the same launch again, inputs / launch / reference at the
bench shape. Usage: python3 bench/gpu/cost_phases.py TASK.py  (prints JSON)."""
import json
import sys
import time

T0 = time.perf_counter()
marks = []


def mark(name):
    """Record the seconds since the last mark under name."""
    now = time.perf_counter()
    last = marks[-1][2] if marks else T0
    marks.append((name, round(now - last, 3), now))


import torch  # noqa: E402
mark("import torch")
import triton  # noqa: E402,F401
mark("import triton")
torch.zeros(1, device="cuda")
torch.cuda.synchronize()
mark("cuda start")
sys.path.insert(0, "python")
from tritondx_harness.taskload import load_task  # noqa: E402
from tritondx_harness.common import bench_shape  # noqa: E402
task = load_task(sys.argv[1])
mark("load task")
shape = task.shapes["check"][0] if hasattr(task, "shapes") else None
ins = task.inputs(shape, "cuda", 0, None)
mark("check inputs")
task.launch(*ins)
torch.cuda.synchronize()
mark("first launch (compile)")
task.launch(*ins)
torch.cuda.synchronize()
mark("second launch")
bs = bench_shape(task, None)
big = task.inputs(bs, "cuda", 0, None)
torch.cuda.synchronize()
mark("bench inputs")
task.launch(*big)
torch.cuda.synchronize()
mark("bench launch (maybe compile)")
task.launch(*big)
torch.cuda.synchronize()
mark("bench launch again")
task.reference(*big)
torch.cuda.synchronize()
mark("bench reference")
print(json.dumps({"task": sys.argv[1], "total_s": round(time.perf_counter() - T0, 3),
                  "steps": [[n, s] for n, s, _ in marks]}))
