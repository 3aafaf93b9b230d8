"""The harness's own defences against hostile code, tested in-process on the
CPU: pinned timers, the list of watched objects, and the guard band that
catches stores past the end of an output."""
import torch

from tritondx_harness import gpu, isolate
from tritondx_harness.check import GUARD, poisoned_allocations


def test_pinned_timers_survive_a_replaced_event_class():
    gpu.pin_timers()
    real = gpu._timer("event")
    real_elapsed = gpu._timer("elapsed")
    before = isolate.snapshot()
    saved, saved_elapsed = torch.cuda.Event, torch.cuda.Event.elapsed_time

    class Fake:
        def elapsed_time(self, other):
            return 1e-6

    try:
        torch.cuda.Event = Fake
        assert gpu._timer("event") is real
        assert gpu._timer("elapsed") is real_elapsed
        assert isolate.replaced(before)[:1] == ["torch.cuda.Event"]
    finally:
        torch.cuda.Event = saved
    try:
        torch.cuda.Event.elapsed_time = lambda self, other: 1e-6
        assert gpu._timer("elapsed") is real_elapsed
        assert isolate.replaced(before) == ["torch.cuda.Event.elapsed_time"]
    finally:
        torch.cuda.Event.elapsed_time = saved_elapsed
    assert isolate.replaced(before) == []


def test_replaced_harness_function_is_seen():
    from tritondx_harness import check
    before = isolate.snapshot()
    saved = check.compare
    try:
        check.compare = lambda *a, **k: {"ok": True}
        assert isolate.replaced(before) == ["tritondx_harness.check.compare"]
    finally:
        check.compare = saved


def test_guard_band_counts_stores_past_the_end():
    with poisoned_allocations("nan") as guards:
        y = torch.empty(10)
        z = torch.empty_like(y)
    assert y.storage_offset() == 0 and y.shape == (10,) and torch.isnan(y).all()
    assert guards.damage() == 0
    y.as_strided((17,), (1,))[10:] = 1.0  # seven elements past the end
    z.fill_(2.0)  # inside its bounds: no damage
    assert guards.damage() == 7
    assert len(guards) == 2 and GUARD >= 1024


def test_guard_band_keeps_as_strided_offsets_absolute():
    # code that places a view at an absolute storage offset of a fresh buffer
    # (clone_like does, for misaligned inputs) must still land inside it
    with poisoned_allocations("nan") as guards:
        buf = torch.empty(9)
        view = buf.as_strided((8,), (1,), 1)
        view.copy_(torch.arange(8.0))
    assert guards.damage() == 0
    assert buf[1:].tolist() == list(range(8))
