"""Timing on the GPU with CUDA events (used by time and ceilings)."""
from .protocol import NO_GPU, HarnessError


def require_cuda():
    """The torch module with a CUDA device visible, or HarnessError(no_gpu)."""
    import torch
    if not torch.cuda.is_available():
        raise HarnessError(NO_GPU, "this verb needs a CUDA device and none is visible")
    return torch


def device_info():
    """Name, SM count, L2 size and memory of the current device."""
    torch = require_cuda()
    p = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {"name": p.name, "sms": p.multi_processor_count, "l2_bytes": getattr(p, "L2_cache_size", None),
            "memory_bytes": p.total_memory, "capability": [p.major, p.minor]}


def time_interleaved(fns, reps, warmup=3, arg_sets=None):
    """Time each callable `reps` times with CUDA events, interleaved run by
    run (the order rotates each round), so that drift in clocks or heat hits
    all of them alike. fns: {name: fn(*args)}; arg_sets: a list of argument
    tuples rotated among (run i uses arg_sets[i % len]). Returns {name: [ms]}."""
    torch = require_cuda()
    arg_sets = arg_sets or [()]
    names = list(fns)
    for _ in range(warmup):
        for name in names:
            fns[name](*arg_sets[0])
    torch.cuda.synchronize()
    events = {name: [] for name in names}
    for i in range(reps):
        args = arg_sets[i % len(arg_sets)]
        order = names[i % len(names):] + names[:i % len(names)]
        for name in order:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fns[name](*args)
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    return {name: [s.elapsed_time(e) for s, e in evs] for name, evs in events.items()}


def estimate_ms(fn, args, runs=3):
    """A rough time of one run (after one warm-up), to size the repetitions."""
    torch = require_cuda()
    fn(*args)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(runs):
        fn(*args)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / runs
