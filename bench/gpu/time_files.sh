#!/usr/bin/env bash
# Candidate files timed against their task side by side by the harness's
# `time` verb, one line each (no check: run `tritondx check` or optimize for
# that). For kernels written by hand or by `tritondx rewrite`, before a
# family's order is settled.
#   bash bench/gpu/time_files.sh bench/tasks/batchnorm_infer_fp16.py cand1.py cand2.py
set -u
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
task=$1
shift
printf '%-40s %12s %12s %8s\n' candidate task_ms cand_ms speedup
for cand in "$@"; do
  timeout 120 python3 -m tritondx_harness time --task "$task" --candidate "$cand" --no-reference \
    > /tmp/tdx-time.json 2> /tmp/tdx-time.err
  python3 - /tmp/tdx-time.json "$cand" <<'PY'
import json, os, sys
path, cand = sys.argv[1:3]
try:
    v = json.load(open(path))["variants"]
    b, c = v["baseline"]["median_ms"], v["candidate"]["median_ms"]
    print(f"{os.path.basename(cand):40s} {b:12.4f} {c:12.4f} {b / c:7.2f}x")
except Exception as exc:  # a failed timing is a line too
    print(f"{os.path.basename(cand):40s} failed: {exc}")
PY
done
