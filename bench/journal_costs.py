"""Where the seconds of optimize runs went, from their journals: the task's
own check and timing, each candidate's check (and its parts, where the
journal has them: start, precompile, child, judge), timing and GPU-lock
waits, the diagnosis before each round and the end's confirming timing.
Median, count and sum of each, over every journal.jsonl under the given
folders (a suite.sh output unpacked, or a run directory).

    python3 bench/journal_costs.py DIR [DIR ...]
"""
import glob
import json
import os
import statistics
import sys


def costs(root):
    """{name: [seconds, ...]} over the journals under root."""
    out = {}

    def add(name, v):
        if isinstance(v, (int, float)) and v >= 0:
            out.setdefault(name, []).append(float(v))

    for path in glob.glob(os.path.join(root, "**", "journal.jsonl"), recursive=True):
        prev = 0.0
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                kind = e.get("type")
                if kind in ("baseline", "candidate"):
                    who = "task" if kind == "baseline" else "candidate"
                    add(f"{who} check", e.get("check_s"))
                    add(f"{who} time", e.get("time_s"))
                    for part, v in (e.get("check_parts_s") or {}).items():
                        add(f"{who} check: {part}", v)
                    for step, v in (e.get("lock_wait_s") or {}).items():
                        add(f"{who} {step}: lock wait", v)
                elif kind == "round":
                    add("diagnosis before a round", e.get("at_s", prev) - prev)
                elif kind == "confirm":
                    add("confirm", e.get("at_s", prev) - prev)
                prev = e.get("at_s", prev)
    return out


def main(dirs):
    for root in dirs:
        c = costs(root)
        print(f"\n{root}\n")
        print("| step | median s | count | sum s |")
        print("|---|---|---|---|")
        for name in sorted(c):
            v = c[name]
            print(f"| {name} | {statistics.median(v):.2f} | {len(v)} | {sum(v):.0f} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
