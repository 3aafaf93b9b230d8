"""Every candidate of the optimize runs under a folder, one line each, from
their journals: round, index, family, verdict, the candidate's time over its
baseline's, the tolerance its check judged by, the reason; then the keeps and
the end's confirm. For a suite call's run folders, printed on the GPU machine
(a call brings back only a few files).

    python3 bench/gpu/journal_digest.py DIR
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize_runs import read_journal  # noqa: E402


def paired(tm, verdict):
    """', paired 0.945 [0.931, 0.958]': the rep-by-rep ratio and its 95 %
    interval when the timing has them, with '(would keep)' where the interval
    lies below 1 but the verdict is not faster, '(would not)' the other way."""
    if not tm.get("ratio_median"):
        return ""
    lo, hi = tm["ratio_lo"], tm["ratio_hi"]
    note = " (would keep)" if hi < 1 and verdict != "faster" else " (would not)" if hi >= 1 and verdict == "faster" \
        else ""
    return f", paired {tm['ratio_median']:.3f} [{lo:.3f}, {hi:.3f}]{note}"


def alone(e):
    """' checked again alone (N s)' when the entry's check ran out of GPU
    memory beside other processes and ran a second time by itself."""
    s = (e.get("check_parts_s") or {}).get("alone")
    return f" checked again alone after running out of GPU memory ({s:.1f} s)" if s is not None else ""


def digest(path):
    for e in read_journal(path):
        t = e.get("type")
        if t == "baseline":
            print(f"  baseline {e.get('median_s', 0) * 1e3:.4f} ms, fraction {e.get('fraction', -1):.3f}, "
                  f"tolerance {e.get('tolerance')}{alone(e)}")
        elif t == "candidate":
            tm = e.get("timing") or {}
            ratio = tm["cand_median_s"] / tm["base_median_s"] if tm.get("base_median_s") else None
            r = f"{ratio:.3f}" if ratio else "-"
            spread = max(tm.get("base_iqr_s", 0), tm.get("cand_iqr_s", 0)) / tm["base_median_s"] if ratio else 0
            again = " timed twice" if e.get("timings", 1) > 1 else ""
            print(f"  r{e.get('round')} c{e.get('index')} {e.get('family')}: {e.get('verdict')} {r} "
                  f"(IQR {spread:.1%}{again}{paired(tm, e.get('verdict'))}) tol {e.get('tolerance')} "
                  f"{(e.get('reason') or '')[:110]}{alone(e)}")
        elif t == "keep":
            print(f"  keep r{e.get('round')} c{e.get('index')} {e.get('family')} {e.get('median_s', 0) * 1e3:.4f} ms")
        elif t == "confirm":
            print(f"  confirm {json.dumps({k: v for k, v in e.items() if k not in ('seq', 'at_s', 'type')})[:240]}")
        elif t == "stop":
            print(f"  stop: {e.get('reason')}")


def main(d):
    for root, _, files in sorted(os.walk(d)):
        if "journal.jsonl" in files:
            print(os.path.relpath(root, d))
            digest(os.path.join(root, "journal.jsonl"))


if __name__ == "__main__":
    main(sys.argv[1])
