"""A table of optimize runs from their journals (one run directory per task)."""
import json
import os
import sys


def read_journal(path):
    """The entries of a journal.jsonl; a line that does not parse (a run cut off mid-write) is skipped."""
    entries = []
    with open(path) as f:
        for line in f:
            try:
                entries.append(json.loads(line))
            except ValueError:
                pass
    return entries


def main(d):
    print(f"{'task':24} {'initial ms':>10} {'final ms':>9} {'speedup':>7} {'roofline':>8} {'tried':>5} "
          f"{'kept':>4}  kept families (level)  stop")
    for name in sorted(os.listdir(d)):
        jl = os.path.join(d, name, "journal.jsonl")
        if not os.path.isfile(jl):
            continue
        entries = read_journal(jl)
        base = next((e for e in entries if e["type"] == "baseline"), {})
        stop = next((e for e in entries if e["type"] == "stop"), {})
        keeps = [e for e in entries if e["type"] == "keep"]
        rounds = {e["round"]: e for e in entries if e["type"] == "round_end"}
        fams = ",".join(f"{k['family']}({rounds.get(k['round'], {}).get('decided_level', '?')})" for k in keeps)
        tried = sum(1 for e in entries if e["type"] == "candidate")
        init = base.get("median_s", 0) * 1e3
        final = stop.get("final_median_s", init / 1e3) * 1e3 if stop else (keeps[-1]["median_s"] * 1e3 if keeps else init)
        frac = keeps[-1].get("fraction") if keeps else base.get("fraction")
        sp = init / final if final else 0
        fr = f"{100 * frac:.0f}%" if isinstance(frac, (int, float)) and frac >= 0 else "-"
        print(f"{name:24} {init:10.4f} {final:9.4f} {sp:7.2f} {fr:>8} {tried:5d} {len(keeps):4d}  {fams or '-'}  "
              f"{stop.get('reason', 'did not stop')}")


if __name__ == "__main__":
    main(sys.argv[1])
