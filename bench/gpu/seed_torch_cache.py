"""Seed a torch-columns cache (`tritondx bench --torch-cache`) from committed
results files: a row's torch columns are kept under the key of its task file
as it is now ("SHA:DEVICE", the FNV-1a hash tritondx uses), so only rows
measured on the current task files belong here -- check with git that the
tasks did not change after the runs.

Usage: python3 bench/gpu/seed_torch_cache.py --suite bench/tasks --device cuda \
           --out bench/results/torch-h200.json RESULTS.json...
Later files win; an entry already in --out is kept."""
import argparse
import json
import os


def fnv1a(data):
    """tdx_loop_hash: 64-bit FNV-1a as 16 hex digits."""
    h = 1469598103934665603
    for b in data:
        h ^= b
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--suite", required=True)
    p.add_argument("--device", default="cuda")
    p.add_argument("--out", required=True)
    p.add_argument("results", nargs="+")
    a = p.parse_args()
    cache = json.load(open(a.out)) if os.path.exists(a.out) else {}
    seeded = {}
    for path in a.results:
        for row in json.load(open(path))["rows"]:
            task = os.path.join(a.suite, row["task"])
            if row.get("status") != "ok" or not os.path.exists(task):
                continue
            if not (row.get("eager_ms", -1) > 0 or row.get("compile_ms", -1) > 0):
                continue
            key = fnv1a(open(task, "rb").read()) + ":" + a.device
            seeded[key] = {k: row.get(k) for k in ("task", "eager_ms", "compile_ms", "compile_build_s",
                                                   "torch_baseline", "torch_note")}
            seeded[key]["measured_in"] = os.path.basename(path)
    for k, v in seeded.items():
        cache.setdefault(k, v)
    with open(a.out + ".tmp", "w") as f:
        json.dump(cache, f, indent=1, sort_keys=True)
    os.replace(a.out + ".tmp", a.out)
    print(f"{len(cache)} entries ({len(seeded)} from the results files)")


if __name__ == "__main__":
    main()
