"""Print the probe's short table from the JSON files in a folder."""
import json
import os
import sys


def load(d, name):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"ok": False, "error": f"{name}: {e}"}


def main(d):
    c = load(d, "ceilings.json")
    if c.get("ok"):
        mm = c.get("matmul", {})
        print(f"device {c['device'].get('name')}  sms {c['device'].get('sms')}  L2 {c['device'].get('l2_bytes')}")
        print(f"copy {c['copy_bytes_per_s'] / 1e12:.2f} TB/s  " + "  ".join(
            f"{k} {v['flops_per_s'] / 1e12:.0f} TFLOP/s" for k, v in mm.items()) +
            f"  launch {c['launch']['wall_us_per_launch']:.2f} us")
    else:
        print("ceilings:", c.get("error"))
    print(f"{'task':24} {'median ms':>10} {'again ms':>10} {'diff %':>7} {'GB/s':>8} {'TFLOP/s':>8} {'eager ms':>9} {'compile ms':>10}  level-1 findings")
    for name in sorted(os.listdir(d)):
        if not name.startswith("time_") or not name.endswith(".json"):
            continue
        t = name[5:-5]
        r = load(d, name)
        dx = load(d, f"dx_{t}.json")
        rules = ",".join(f"{f['rule']}" for f in dx.get("findings", []) if f.get("level") == 1) or dx.get("error", "-")
        if not r.get("ok"):
            print(f"{t:24} error: {r.get('error')}")
            continue
        b, c2 = r["variants"]["baseline"], r["variants"].get("candidate", {})
        diff = 100 * abs(c2.get("median_ms", 0) - b["median_ms"]) / b["median_ms"] if c2 else float("nan")
        gbs = (b.get("bytes_per_s") or 0) / 1e9
        tf = (b.get("flops_per_s") or 0) / 1e12
        e = r.get("torch_eager", r.get("reference_eager", {})).get("median_ms")
        tc = r.get("torch_compile", {}).get("median_ms")
        print(f"{t:24} {b['median_ms']:10.4f} {c2.get('median_ms', float('nan')):10.4f} {diff:7.2f} {gbs:8.0f} {tf:8.1f} "
              f"{e if e is not None else float('nan'):9.4f} {tc if tc is not None else float('nan'):10.4f}  {rules}")
    n = load(d, "ncu_softmax_long.json")
    print("ncu:", "ok" if n.get("ok") else n.get("error"))
    for m in ("jit", "aot"):
        cap = load(d, f"capture_{m}.json")
        ks = cap.get("kernels", [])
        spec = [(k.get("name"), k.get("specialization", k.get("attrs"))) for k in ks] if cap.get("ok") else cap.get("error")
        print(f"capture {m}:", json.dumps(spec)[:400])


if __name__ == "__main__":
    main(sys.argv[1])
