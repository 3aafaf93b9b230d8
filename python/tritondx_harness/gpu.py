"""Timing on the GPU with CUDA events (used by time and ceilings).

The event class, its record/elapsed_time and torch.cuda.synchronize are
taken once by pin_timers(), before any task or candidate code is imported,
and used from there: code that later replaces torch.cuda.Event (or its
methods) does not change what the harness measures with.
"""
from . import gpulock
from .protocol import NO_GPU, HarnessError

_TIMERS = {}


def pin_timers():
    """Take the timing objects now (idempotent); see the module's note."""
    if _TIMERS:
        return
    import torch
    _TIMERS.update(event=torch.cuda.Event, record=torch.cuda.Event.record,
                   elapsed=torch.cuda.Event.elapsed_time, sync=torch.cuda.synchronize)


def _timer(name):
    """A pinned timing object (pinning now when nothing was pinned)."""
    pin_timers()
    return _TIMERS[name]


def _event():
    """A new timing event of the pinned class."""
    return _timer("event")(enable_timing=True)


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


def time_interleaved(fns, reps, warmup=3, arg_sets=None, batch=1):
    """Time each callable `reps` times with CUDA events, interleaved run by
    run (the order rotates each round), so that drift in clocks or heat hits
    all of them alike. fns: {name: fn(*args)}; arg_sets: a list of argument
    tuples rotated among (call j uses arg_sets[j % len]). With batch > 1 one
    event pair spans `batch` consecutive calls and the time is their mean:
    the host enqueues a call while the GPU runs the one before, so a launch
    whose Python path is as long as its kernels is not timed with the GPU
    idle in between (bench/gpu/timing_batch.py). Returns {name: [ms]}."""
    with gpulock.exclusive():
        return _time_interleaved(fns, reps, warmup, arg_sets, batch)


def _time_interleaved(fns, reps, warmup, arg_sets, batch=1):
    require_cuda()
    arg_sets = arg_sets or [()]
    names = list(fns)
    record, elapsed, sync = _timer("record"), _timer("elapsed"), _timer("sync")
    for _ in range(warmup):
        for name in names:
            fns[name](*arg_sets[0])
    sync()
    batch = max(1, int(batch))
    events = {name: [] for name in names}
    for i in range(reps):
        order = names[i % len(names):] + names[:i % len(names)]
        for name in order:
            start = _event()
            end = _event()
            record(start)
            for j in range(batch):
                fns[name](*arg_sets[(i * batch + j) % len(arg_sets)])
            record(end)
            events[name].append((start, end))
    sync()
    return {name: [elapsed(s, e) / batch for s, e in evs] for name, evs in events.items()}


def estimate_ms(fn, args, runs=3):
    """A rough time of one run (after one warm-up), to size the repetitions."""
    require_cuda()
    with gpulock.exclusive():
        return _estimate_ms(fn, args, runs)


def _estimate_ms(fn, args, runs):
    record, elapsed, sync = _timer("record"), _timer("elapsed"), _timer("sync")
    fn(*args)
    sync()
    start = _event()
    end = _event()
    record(start)
    for _ in range(runs):
        fn(*args)
    record(end)
    sync()
    return elapsed(start, end) / runs
