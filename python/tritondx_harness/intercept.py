"""Recording `kernel[grid](...)` launches without running them, and running
autotuned kernels with one chosen config instead of benchmarking.

While record_launches() is active, JITFunction.run records (kernel, args,
kwargs, grid) and returns None. While one_config() is active, Autotuner.run
forwards the chosen config's kwargs (num_warps, num_stages, constexprs) to
the kernel instead of timing every config (there is no GPU to time on).
Heuristics.run is left alone: it fills its values and calls the wrapped
kernel's run.
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
def one_config(config_index=0, chosen=None):
    """Make @triton.autotune use configs[config_index] (0 when out of range);
    each choice is stored in `chosen["config"]` when a dict is given."""
    from triton.runtime.autotuner import Autotuner

    saved = Autotuner.run

    def tune_run(self, *args, **kwargs):
        """Autotuner.run stand-in: forward the chosen config, time nothing."""
        if not self.configs:
            return self.fn.run(*args, **kwargs)
        idx = config_index if 0 <= config_index < len(self.configs) else 0
        cfg = self.configs[idx]
        if chosen is not None:
            chosen["config"] = {"index": idx, "count": len(self.configs), "text": str(cfg)}
        return self.fn.run(*args, **{**kwargs, **cfg.all_kwargs()})

    Autotuner.run = tune_run
    try:
        yield
    finally:
        Autotuner.run = saved


@contextlib.contextmanager
def record_launches(config_index=0):
    """Yield a list that receives a Launch per kernel call made in the block."""
    from triton.runtime.jit import JITFunction

    launches = []
    chosen = {}
    saved_run = JITFunction.run

    def jit_run(self, *args, grid, warmup, **kwargs):
        """JITFunction.run stand-in: record the launch, run nothing."""
        launches.append(Launch(self, args, dict(kwargs), grid, chosen.pop("config", None)))
        return None

    JITFunction.run = jit_run
    try:
        with one_config(config_index, chosen):
            yield launches
    finally:
        JITFunction.run = saved_run
