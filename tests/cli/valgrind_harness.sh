#!/usr/bin/env bash
# A stand-in for `python3 -m tritondx_harness VERB --task F ...` for the CLI
# under valgrind: `capture` answers with the IR fixture in $TDX_FAKE_IR
# (meta.json and k.ttir/k.ttgir/k.ptx/k.ptxas.txt) as the kernel of the
# task, so that attribute, analyze and diagnose run their levels 2 and 3
# without Triton; `ceilings`, `time` and `ncu` say there is no GPU, as the
# harness does. Any other verb goes to the real harness.
set -euo pipefail
if [ "${1:-}" != "-m" ] || [ "${2:-}" != "tritondx_harness" ]; then
    echo "usage: valgrind_harness.sh -m tritondx_harness VERB ..." >&2
    exit 2
fi
case "${3:-}" in
capture | ceilings | time | ncu) ;;
*) exec python3 "$@" ;;
esac
exec python3 - "$@" <<'PY'
import json, os, sys
args = sys.argv[1:]
verb = args[2]
task = args[args.index("--task") + 1] if "--task" in args else None
if verb != "capture":
    print(json.dumps({"ok": False, "verb": verb, "protocol": 1, "error": "no CUDA device is visible",
                      "error_kind": "no_gpu"}))
    sys.exit(0)
d = os.environ["TDX_FAKE_IR"]
meta = json.load(open(os.path.join(d, "meta.json")))
art = {k: os.path.join(d, "k." + k) for k in ("ttir", "ttgir", "ptx") if os.path.exists(os.path.join(d, "k." + k))}
k = {"name": meta["kernel"], "file": os.path.abspath(task), "line": 1, "launch_count": 1, "grid": [64],
     "signature": meta.get("signature", {}), "constexprs": meta.get("constexprs", {}),
     "divisibility_16": meta.get("divisibility_16", []), "num_warps": meta.get("num_warps", 4),
     "num_stages": meta.get("num_stages", 3), "metadata": {"shared": meta.get("shared", 0)},
     "error": None, "artifacts": art, "remarks": []}
log = os.path.join(d, "k.ptxas.txt")
if os.path.exists(log):
    k["resources"] = {"registers": 32, "spill_stores": 0, "spill_loads": 0, "ptxas_log": open(log).read()}
print(json.dumps({"ok": True, "verb": "capture", "protocol": 1, "mode": "aot", "task": task,
                  "kind": "task", "kernels": [k]}))
PY
