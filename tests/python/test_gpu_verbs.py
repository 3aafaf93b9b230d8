"""time, ceilings, ncu: the parts that need no GPU (statistics, rotation,
byte counting, the cache, ncu's command line and CSV), and a clean no_gpu
reply from each verb on this machine."""
import json
import math
import os
import subprocess
import sys

import pytest
import torch

from conftest import PYDIR, task
from tritondx_harness import ceilings, ncu, stats, timing
from tritondx_harness.taskload import load_task


def test_quantiles_and_summary():
    s = stats.summarize([5, 1, 3, 2, 4])
    assert s["n"] == 5 and s["median_ms"] == 3 and s["min_ms"] == 1 and s["max_ms"] == 5
    assert s["q1_ms"] == 2 and s["q3_ms"] == 4 and s["iqr_ms"] == 2
    s = stats.summarize([1.0, 2.0, 3.0, 4.0])
    assert s["median_ms"] == 2.5 and math.isclose(s["q1_ms"], 1.75) and math.isclose(s["q3_ms"], 3.25)
    assert stats.summarize([])["median_ms"] is None


def test_paired_ratios_see_through_drift():
    """The card drifts 20 % over the timing (the IQRs cover 7 %), the candidate
    is 3 % faster in every repetition: the paired ratio says 0.97 with a narrow
    interval below 1, where medians and IQRs would call it a tie."""
    base = [1.0 + 0.2 * i / 99 for i in range(100)]
    cand = [0.97 * b for b in base]
    p = stats.paired(base, cand)
    assert p["n"] == 100 and p["below"] == 100
    assert math.isclose(p["ratio_median"], 0.97) and math.isclose(p["ratio_hi"], 0.97)
    sb, sc = stats.summarize(base), stats.summarize(cand)
    assert sb["median_ms"] - sc["median_ms"] < max(sb["iqr_ms"], sc["iqr_ms"])
    # a tie: half the pairs either way, the interval straddles 1 (sign test, n = 100: ranks 40 and 61)
    ratios = [0.99 + 0.02 * i / 99 for i in range(100)]
    p = stats.paired([1.0] * 100, ratios)
    assert p["ratio_lo"] == ratios[39] < 1 < ratios[60] == p["ratio_hi"] and p["below"] == 50
    # too few pairs for an interval; pairs with a zero time are dropped
    assert stats.paired([1.0] * 5, [0.9] * 5) is None
    assert stats.paired([1.0] * 6 + [0.0], [0.9] * 7)["n"] == 6


def test_rotation_count_covers_several_l2s():
    l2 = 60 * 2**20
    assert stats.rotation_count(8 * 2**20, l2, 4) == 30          # 240 MiB / 8 MiB
    assert stats.rotation_count(1024, l2, 4) == 1024             # capped
    assert stats.rotation_count(2**30, l2, 4) == 1               # one set is already larger
    assert stats.rotation_count(8 * 2**20, l2, 4, budget_bytes=80 * 2**20) == 10
    assert stats.rotation_count(0, l2) == 1
    n = stats.rotation_count(3 * 2**20, l2, 4)
    assert n * 3 * 2**20 >= 4 * l2


def test_repetitions_and_rates():
    assert stats.repetitions(1.0, 300) == 300
    assert stats.repetitions(1000.0, 300) == 10
    assert stats.repetitions(0.0001, 300) == 2000
    r = stats.rates(2.0, nbytes=4e9, flops=1e12)
    assert r["bytes_per_s"] == 2e12 and r["flops_per_s"] == 5e14
    assert stats.rates(0, 1, 1) == {"bytes_per_s": None, "flops_per_s": None}


def test_batching_keeps_the_timed_total():
    """Short variants run several calls an event pair, with as many fewer
    pairs (never under 20); 0.5 ms and longer run one call a pair."""
    assert stats.batching(1.0, 300) == (1, 300)
    assert stats.batching(0.5, 600) == (1, 600)
    assert stats.batching(0.08, 2000) == (6, 334)
    assert stats.batching(0.001, 2000) == (32, 63)
    assert stats.batching(0.2, 30) == (2, 20)
    assert stats.batching(0.0, 2000) == (1, 2000)


def test_batched_samples_are_batch_means(monkeypatch):
    """One event pair around `batch` calls, each call on the next rotated
    argument set, the sample their mean (a fake clock the calls advance)."""
    from tritondx_harness import gpu
    clock = [0.0]

    class Ev:
        def __init__(self, enable_timing=True):
            self.t = None

    def record(ev):
        ev.t = clock[0]
    monkeypatch.setattr(gpu, "_TIMERS", {"event": Ev, "record": record, "elapsed": lambda s, e: e.t - s.t,
                                         "sync": lambda: None})
    monkeypatch.setattr(gpu, "require_cuda", lambda: None)
    seen = []

    def f(x):
        seen.append(x)
        clock[0] += x
    out = gpu._time_interleaved({"f": f}, 3, 1, [(1.0,), (2.0,), (3.0,)], batch=2)
    assert out["f"] == [1.5, 2.0, 2.5]
    assert seen == [1.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert gpu._time_interleaved({"f": f}, 2, 0, [(1.0,), (4.0,)])["f"] == [1.0, 4.0]


def test_byte_count_default_and_task():
    t = load_task(task("rowsum.py"))  # no bytes(): inputs once + outputs once
    x = torch.zeros(64, 64)
    out = [torch.zeros(64)]
    assert timing.count_bytes_flops(t, (x,), out) == (64 * 64 * 4 + 64 * 4, None, "default")
    t = load_task(task("add.py"))  # bytes() given by the task
    assert timing.count_bytes_flops(t, (x, x), [x]) == (3 * 64 * 64 * 4, None, "task")


def test_ceilings_cache(tmp_path):
    p = ceilings.cache_path(str(tmp_path), "NVIDIA H200")
    assert p.endswith("ceilings-nvidia-h200.json")
    assert ceilings.load_cached(p) is None
    ceilings.save_cached(p, {"copy_bytes_per_s": 4.2e12})
    assert ceilings.load_cached(p) is None  # measured before the read bandwidth was: again
    ceilings.save_cached(p, {"copy_bytes_per_s": 4.2e12, "read_bytes_per_s": 4.6e12})
    assert ceilings.load_cached(p) == {"copy_bytes_per_s": 4.2e12, "read_bytes_per_s": 4.6e12}
    with open(p, "w") as f:
        f.write("{broken")
    assert ceilings.load_cached(p) is None


RAW = """==PROF== Connected to process 4242 (/usr/bin/python3)
{"ok": true, "verb": "launch", "protocol": 1}
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
"","","","","","","","","","","","%","ns","","sector",""
"0","4242","python3","h","add_kernel","1","7","(128, 1, 1)","(8192, 1, 1)","0","9.0","91.52","1,234,567","262,144","1,048,576","12.5"
"1","4242","python3","h","add_kernel","1","7","(128, 1, 1)","(8192, 1, 1)","0","9.0","90.00","1,200,000","262,144","2,097,152","n/a"
==PROF== Disconnected from process 4242
"""

DETAILS = """==PROF== Connected to process 4243
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"
"0","4243","python3","h","add_kernel","1","7","(128, 1, 1)","(8192, 1, 1)","0","9.0","Occupancy","Achieved Occupancy","%","81.25","","","","",""
"0","4243","python3","h","add_kernel","1","7","(128, 1, 1)","(8192, 1, 1)","0","9.0","SpeedOfLight","","","","SOLBottleneck","INF","Memory is more heavily utilized than Compute.","",""
"0","4243","python3","h","add_kernel","1","7","(128, 1, 1)","(8192, 1, 1)","0","9.0","MemoryWorkloadAnalysis","","","","UncoalescedGlobalAccess","OPT","This kernel has uncoalesced global accesses, resulting in a total of 1,000 excessive sectors.","global","34.74"
"""


def test_parse_ncu_raw():
    launches = ncu.parse_raw(RAW)
    assert [ln["id"] for ln in launches] == [0, 1]
    first = launches[0]
    assert first["name"] == "add_kernel" and first["grid"] == "(8192, 1, 1)"
    assert first["raw"]["gpu__time_duration.sum"] == {"value": 1234567.0, "unit": "ns"}
    m = ncu.select_metrics(first["raw"])
    assert m["dram_throughput_pct"] == 91.52
    assert m["global_load_sectors_per_request"] == 4.0
    assert m["stall_long_scoreboard"] == 12.5
    assert m["l2_hit_rate_pct"] is None  # not in this canned output
    assert ncu.select_metrics(launches[1]["raw"])["stall_long_scoreboard"] is None  # "n/a"
    assert ncu.parse_raw("no csv here") == []


def test_parse_ncu_details_rules():
    d = ncu.parse_details(DETAILS)
    k = d[0]
    assert k["name"] == "add_kernel"
    assert k["sections"]["Occupancy"]["Achieved Occupancy"] == {"value": 81.25, "unit": "%"}
    assert [r["rule"] for r in k["rules"]] == ["SOLBottleneck", "UncoalescedGlobalAccess"]
    un = k["rules"][1]
    assert un["type"] == "OPT" and un["speedup_type"] == "global" and un["speedup_pct"] == 34.74
    assert k["rules"][0]["speedup_pct"] is None


def test_ncu_command_lines():
    child = ncu.child_argv("/t/add.py", "1024")
    raw = ncu.ncu_command("/usr/bin/ncu", ["add_kernel"], child, "raw", 2)
    assert raw[:3] == ["/usr/bin/ncu", "--clock-control", "none"]
    assert "--csv" in raw and raw[raw.index("--page") + 1] == "raw"
    assert "dram__throughput.avg.pct_of_peak_sustained_elapsed" in raw[raw.index("--metrics") + 1]
    assert raw[raw.index("-k") + 1] == "regex:^(add_kernel)$"
    assert raw[-6:] == ["tritondx_harness", "launch", "--task", "/t/add.py", "--shape", "1024"]
    det = ncu.ncu_command("/usr/bin/ncu", ["a", "b"], child, "details")
    assert det[det.index("--set") + 1] == "full" and det[det.index("--page") + 1] == "details"
    assert det[det.index("-k") + 1] == "regex:^(a|b)$"


@pytest.mark.parametrize("argv", [
    ["time", "--task", task("add.py")],
    ["ceilings"],
    ["ncu", "--task", task("add.py")],
    ["launch", "--task", task("add.py")],
    ["capture", "--mode", "jit", "--task", task("add.py")],
    ["check", "--device", "cuda", "--task", task("add.py")],
])
def test_gpu_verbs_say_no_gpu(argv, tmp_path, monkeypatch):
    # in process, with CUDA reported absent whatever this machine has
    from tritondx_harness.__main__ import dispatch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    if argv[0] == "ceilings":
        argv = argv + ["--cache", str(tmp_path)]
    obj = dispatch(argv)
    assert obj["ok"] is False and obj["error_kind"] == "no_gpu", obj
    assert obj["verb"] == argv[0]
    json.dumps(obj)


def test_unknown_metrics_are_named_from_ncu_errors():
    asked = list(ncu.METRICS.values())
    msg = ("==ERROR== Failed to find metric smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio\n"
           "==ERROR== An error occurred while trying to profile.")
    assert ncu.unknown_metrics(msg, asked) == ["smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio"]
    assert ncu.unknown_metrics("all good", asked) == []
    raw = ncu.ncu_command("ncu", ["k"], ["python3"], "raw", 1, ["a.sum", "b.sum"])
    assert raw[raw.index("--metrics") + 1] == "a.sum,b.sum"


READ_SUM = """
import torch
from tritondx_harness.read_kernel import partial_sums_into, runs
x = torch.arange(100003, dtype=torch.float32) % 7   # not a whole number of runs
out = torch.full((runs(x.numel(), 1024, 4),), float("nan"))
partial_sums_into(x, out, block=1024, iters=4)
want = x[:4096].sum().item(), x[4096 * 24:].sum().item(), x.sum().item()
got = out[0].item(), out[-1].item(), out.sum().item()
assert len(out) == 25 and got == want, (got, want)
try:
    partial_sums_into(x, out[:3], block=1024, iters=4)
    raise SystemExit("too small an output was taken")
except ValueError:
    pass
print("ok")
"""


def test_the_read_ceiling_kernel_sums_its_runs():
    """The kernel `ceilings` times for the read bandwidth sums each run of
    block * iters elements into one partial sum, the last run masked (in
    Triton's interpreter on the CPU)."""
    env = dict(os.environ, TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = PYDIR + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run([sys.executable, "-c", READ_SUM], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]
