"""Two suite runs side by side (the ablation's table): per task the initial and final
times, the speedup and the kept families with the level that decided them, from two
`tritondx bench` results files; with --runs DIR (the second run's run directories, one
folder per task as suite.sh packs them) the deepest diagnosis level that ran in it.
Then the summary of the tasks clean in both.

    python3 bench/compare_runs.py A.json B.json [--labels L0 L0-3] [--runs DIR]
"""
import argparse
import json
import math
import os


def rows(path):
    with open(path) as f:
        return {r["task"].removesuffix(".py"): r for r in json.load(f)["rows"]}


def deepest(runs, task):
    """The deepest level whose state is "ran" in any round of the task's journal, "no round"
    when the run stopped before its first diagnosis (at the roofline target), None when there is
    no journal."""
    if not runs:
        return None
    path = os.path.join(runs, task, task, "journal.jsonl")
    best = "no round"
    try:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                for lv in (e.get("diagnosis") or {}).get("levels", []):
                    if lv.get("state") == "ran":
                        best = max(best if isinstance(best, int) else -1, lv["level"])
    except (OSError, ValueError):
        return None
    return best


def clean(r):
    return r and r.get("status") == "ok" and r.get("initial_s") and r.get("final_s")


def summary(rs):
    sp = [r["initial_s"] / r["final_s"] for r in rs]
    geo = math.exp(sum(math.log(s) for s in sp) / len(sp))
    med = sorted(sp)[len(sp) // 2] if len(sp) % 2 else sum(sorted(sp)[len(sp) // 2 - 1:len(sp) // 2 + 1]) / 2
    faster = sum(1 for r in rs if r.get("compile_ms") and r["final_s"] * 1e3 < r["compile_ms"])
    return geo, med, faster, sum(r.get("seconds") or 0 for r in rs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--labels", nargs=2, default=["A", "B"])
    ap.add_argument("--runs")
    args = ap.parse_args()
    a, b = rows(args.a), rows(args.b)
    la, lb = args.labels
    deep = " | deepest level run" if args.runs else ""
    print(f"| task | {la} initial ms | {la} final ms | {la} speedup | {la} kept (level) | "
          f"{lb} initial ms | {lb} final ms | {lb} speedup | {lb} kept (level){deep} |")
    print("|---" * (9 + bool(args.runs)) + "|")
    both = []
    for task in sorted(set(a) | set(b)):
        cells = []
        for r in (a.get(task), b.get(task)):
            if not clean(r):
                cells.append(f"{(r or {}).get('status', 'absent')} | | | ")
                continue
            cells.append(f"{r['initial_s'] * 1e3:.3f} | {r['final_s'] * 1e3:.3f} | "
                         f"{r['initial_s'] / r['final_s']:.2f}× | {r.get('families') or '–'} ({r.get('levels') or '-'})")
        extra = ""
        if args.runs:
            d = deepest(args.runs, task)
            extra = f" | {d if d is not None else '?'}"
        print(f"| {task} | {cells[0]} | {cells[1]}{extra} |")
        if clean(a.get(task)) and clean(b.get(task)):
            both.append(task)
    if both:
        ga, ma, fa, sa = summary([a[t] for t in both])
        gb, mb, fb, sb = summary([b[t] for t in both])
        print()
        print(f"| the {len(both)} tasks clean in both | {la} | {lb} |")
        print("|---|---|---|")
        print(f"| geomean speedup | {ga:.3f}× | {gb:.3f}× |")
        print(f"| median speedup | {ma:.3f}× | {mb:.3f}× |")
        print(f"| faster than torch.compile | {fa} | {fb} |")
        print(f"| seconds of the task runs | {sa:.0f} | {sb:.0f} |")


if __name__ == "__main__":
    main()
