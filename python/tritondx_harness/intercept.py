"""Recording `kernel[grid](...)` launches without running them.

While the block runs, JITFunction.run records (kernel, args, kwargs, grid)
and returns None, and Autotuner.run forwards one chosen config instead of
benchmarking (the GPU is not there). Heuristics.run is left alone: it fills
its values and calls the wrapped kernel's run, which records.
"""
import contextlib


class Launch:
    """One intercepted launch: the JITFunction and what it was called with."""

    def __init__(self, fn, args, kwargs, grid, config=None):
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.grid = grid
        self.config = config


@contextlib.contextmanager
def record_launches(config_index=0):
    """Yield a list that receives a Launch per kernel call made in the block."""
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction

    launches = []
    chosen = {}
    saved_run = JITFunction.run
    saved_tune = Autotuner.run

    def jit_run(self, *args, grid, warmup, **kwargs):
        launches.append(Launch(self, args, dict(kwargs), grid, chosen.pop("config", None)))
        return None

    def tune_run(self, *args, **kwargs):
        if not self.configs:
            return self.fn.run(*args, **kwargs)
        idx = config_index if 0 <= config_index < len(self.configs) else 0
        cfg = self.configs[idx]
        chosen["config"] = {"index": idx, "count": len(self.configs), "text": str(cfg)}
        return self.fn.run(*args, **{**kwargs, **cfg.all_kwargs()})

    JITFunction.run = jit_run
    Autotuner.run = tune_run
    try:
        yield launches
    finally:
        JITFunction.run = saved_run
        Autotuner.run = saved_tune
