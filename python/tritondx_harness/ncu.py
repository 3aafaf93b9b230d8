"""`ncu` (GPU): Nsight Compute on the task's kernels, in a child process.

Two runs of `ncu --clock-control none --csv` over `python3 -m
tritondx_harness launch --task F`: `--page raw --metrics ...` for chosen
metrics, and `--set full --page details` for ncu's rule results with their
estimated speedups. The child's own JSON line and ncu's ==PROF== lines are
skipped; only CSV rows are parsed. Parsing is plain functions, tested on
canned text.
"""
import csv
import os
import re
import shutil
import subprocess
import sys

from . import protocol
from .protocol import TOOL, HarnessError, describe_exception, one_line

# friendly name -> raw ncu metric
METRICS = {
    "duration_ns": "gpu__time_duration.sum",
    "dram_throughput_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2_throughput_pct": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2_hit_rate_pct": "lts__t_sector_hit_rate.pct",
    "sm_throughput_pct": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "achieved_occupancy_pct": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "registers_per_thread": "launch__registers_per_thread",
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_load_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "global_store_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "shared_load_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_store_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "shared_load_insts": "smsp__inst_executed_op_shared_ld.sum",
    "shared_store_insts": "smsp__inst_executed_op_shared_st.sum",
    "dram_bytes_read": "dram__bytes_read.sum",
    "dram_bytes_write": "dram__bytes_write.sum",
}
STALL_REASONS = ("long_scoreboard", "short_scoreboard", "barrier", "membar", "mio_throttle", "lg_throttle",
                 "math_pipe_throttle", "tex_throttle", "wait", "not_selected", "selected", "dispatch_stall",
                 "drain", "branch_resolving", "no_instruction", "imc_miss", "sleeping", "misc",
                 "gmma")  # gmma: waiting on wgmma, Hopper only
for _r in STALL_REASONS:
    METRICS[f"stall_{_r}"] = f"smsp__average_warps_issue_stalled_{_r}_per_issue_active.ratio"

HEAD_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
                "Block Size", "Grid Size", "Device", "CC")


def add_args(p):
    """Options of the ncu verb."""
    p.add_argument("--task", required=True)
    p.add_argument("--shape")
    p.add_argument("--dtype")
    p.add_argument("--kernel", action="append", help="kernel name (default: every kernel of the task)")
    p.add_argument("--ncu", help="path of ncu (default: on PATH or /usr/local/cuda/bin/ncu)")
    p.add_argument("--launch-count", type=int, default=4, help="kernel launches to profile at most")
    p.add_argument("--no-rules", action="store_true", help="skip the --set full run for rules")
    p.add_argument("--timeout", type=int, default=300, help="seconds per ncu run")


def kernel_regex(names):
    """ncu's -k filter matching exactly these kernel names."""
    return "regex:^(" + "|".join(re.escape(n) for n in names) + ")$"


def child_argv(task, shape=None, dtype=None):
    """The profiled child: this harness's `launch` verb."""
    argv = [sys.executable, "-m", "tritondx_harness", "launch", "--task", task]
    if shape:
        argv += ["--shape", shape]
    if dtype:
        argv += ["--dtype", dtype]
    return argv


def ncu_command(ncu, names, child, page="raw", launch_count=4, metrics=None):
    """The ncu command line for the metrics run (page raw) or the rules run
    (page details, --set full)."""
    cmd = [ncu, "--clock-control", "none", "--csv", "--print-units", "base"]
    if page == "raw":
        cmd += ["--page", "raw", "--metrics", ",".join(metrics or METRICS.values())]
    else:
        cmd += ["--set", "full", "--page", "details"]
    cmd += ["-k", kernel_regex(names), "--launch-count", str(launch_count)]
    return cmd + list(child)


def csv_rows(text):
    """The CSV rows of ncu's output as dicts, from the header line on; lines
    that are not CSV (==PROF== notes, the child's JSON) are skipped."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"')), None)
    if start is None:
        return []
    return list(csv.DictReader(lines[start:]))


def number(text):
    """A float from ncu's text ("1,234.5", "n/a" -> None)."""
    if text is None:
        return None
    t = text.strip().replace(",", "")
    try:
        return float(t)
    except ValueError:
        return None


def parse_raw(text):
    """Metrics run: [{id, name, block, grid, raw: {metric: {value, unit}}}],
    one per profiled launch. The row after the header holds the units."""
    rows = csv_rows(text)
    units = {}
    out = []
    for row in rows:
        if not (row.get("ID") or "").strip():
            units = {k: v for k, v in row.items() if k not in HEAD_COLUMNS}
            continue
        raw = {}
        for k, v in row.items():
            if k in HEAD_COLUMNS or k is None:
                continue
            val = number(v)
            raw[k] = {"value": val if val is not None else v, "unit": units.get(k, "")}
        out.append({"id": int(number(row["ID"]) or 0), "name": row.get("Kernel Name", ""),
                    "block": row.get("Block Size"), "grid": row.get("Grid Size"), "raw": raw})
    return out


def select_metrics(raw):
    """Friendly names for the chosen metrics, plus sectors per request."""
    m = {}
    for friendly, name in METRICS.items():
        v = raw.get(name, {}).get("value")
        m[friendly] = v if isinstance(v, float) else None

    def ratio(a, b):
        """a / b when both are known and b is positive."""
        return a / b if isinstance(a, float) and isinstance(b, float) and b > 0 else None

    m["global_load_sectors_per_request"] = ratio(m["global_load_sectors"], m["global_load_requests"])
    m["global_store_sectors_per_request"] = ratio(m["global_store_sectors"], m["global_store_requests"])
    return m


def parse_details(text):
    """Rules run: {launch id: {"name", "rules": [...], "sections": {...}}}."""
    out = {}
    for row in csv_rows(text):
        lid = int(number(row.get("ID")) or 0)
        k = out.setdefault(lid, {"name": row.get("Kernel Name", ""), "rules": [], "sections": {}})
        section = row.get("Section Name", "")
        if (row.get("Rule Name") or "").strip():
            k["rules"].append({
                "section": section, "rule": row["Rule Name"], "type": row.get("Rule Type", ""),
                "description": one_line(row.get("Rule Description", ""), 1000),
                "speedup_type": row.get("Estimated Speedup Type", "") or None,
                "speedup_pct": number(row.get("Estimated Speedup")),
            })
        elif (row.get("Metric Name") or "").strip():
            val = number(row.get("Metric Value"))
            k["sections"].setdefault(section, {})[row["Metric Name"]] = {
                "value": val if val is not None else row.get("Metric Value"), "unit": row.get("Metric Unit", "")}
    return out


def unknown_metrics(message, asked):
    """Metrics of `asked` that ncu's error output names (a metric this chip
    or ncu version does not know fails the whole run)."""
    return [m for m in asked if m in message]


def find_ncu(explicit=None):
    """ncu's path: --ncu, then PATH, then the CUDA toolkit's default place."""
    for cand in (explicit, shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def _run(cmd, timeout):
    """Run one ncu command with the harness importable; its stdout."""
    env = dict(os.environ)
    pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = pkg_root + os.pathsep + env.get("PYTHONPATH", "")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise HarnessError(TOOL, f"ncu ran past {timeout} s") from None
    except OSError as e:
        raise HarnessError(TOOL, f"ncu could not start: {describe_exception(e)}") from None
    if p.returncode != 0 and '"ID"' not in p.stdout:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        err = HarnessError(TOOL, f"ncu exited {p.returncode}: {' | '.join(tail)}")
        err.output = p.stdout + p.stderr  # kept out of the reply, read by the retry
        raise err
    sys.stderr.write(p.stderr)
    return p.stdout


def run(args):
    """Profile the task's kernels: chosen metrics and rule results per launch."""
    from .gpu import require_cuda
    from .taskload import interpreter, jit_function, load_task
    require_cuda()
    ncu = find_ncu(args.ncu)
    if ncu is None:
        raise HarnessError(TOOL, "ncu (Nsight Compute) not found; pass --ncu PATH")
    with interpreter(False):
        task = load_task(args.task)
    names = args.kernel or [jit_function(obj).__name__ for _, obj, _ in task.kernels]
    names = [n for n in names if n]
    if not names:
        raise HarnessError(protocol.TASK_INVALID, "the task defines no Triton kernel to profile")
    child = child_argv(task.path, args.shape, args.dtype)
    asked = list(METRICS.values())
    cmd_raw = ncu_command(ncu, names, child, "raw", args.launch_count, asked)
    dropped = []
    try:
        out = _run(cmd_raw, args.timeout)
    except HarnessError as e:
        # once: drop the metrics ncu says it does not know, keep the rest
        dropped = unknown_metrics(getattr(e, "output", ""), asked)
        if not dropped or len(dropped) == len(asked):
            raise HarnessError(TOOL, str(e)) from None
        asked = [m for m in asked if m not in dropped]
        cmd_raw = ncu_command(ncu, names, child, "raw", args.launch_count, asked)
        out = _run(cmd_raw, args.timeout)
    launches = parse_raw(out)
    if not launches:
        raise HarnessError(TOOL, f"ncu profiled no launch of {', '.join(names)}")
    rules = {}
    cmd_details = None
    if not args.no_rules:
        cmd_details = ncu_command(ncu, names, child, "details", args.launch_count)
        rules = parse_details(_run(cmd_details, args.timeout))
    kernels = []
    for ln in launches:
        det = rules.get(ln["id"], {})
        kernels.append({"id": ln["id"], "name": ln["name"], "block": ln["block"], "grid": ln["grid"],
                        "metrics": select_metrics(ln["raw"]), "raw": ln["raw"],
                        "rules": det.get("rules", []), "sections": det.get("sections", {})})
    return protocol.result("ncu", task=task.path, ncu=ncu, commands=[c for c in (cmd_raw, cmd_details) if c],
                           dropped_metrics=dropped, kernels=kernels)
