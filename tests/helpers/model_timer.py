#!/usr/bin/env python3
"""A test timer for `tritondx optimize` (the TDX_TEST_TIMER seam): it "times"
a task file by a model of its launch — a larger BLOCK up to 1024 and 8 warps
run faster — and prints the JSON the loop reads. Usage:
model_timer.py BASELINE_FILE CANDIDATE_FILE|- [--torch]
With --torch (the loop's timing beside torch) and TDX_TEST_TIMER_TORCH=E,C[,B]
in the environment it also prints torch eager and torch.compile as E and C
times the baseline's time (and B as torch.compile's compile seconds)."""
import json
import re
import sys
import time


def model(path):
    src = open(path).read()
    m = re.search(r"BLOCK=(\d+)", src)
    block = int(m.group(1)) if m else 64
    t = 1e-3 * 64 / min(block, 1024)
    if "num_warps=8" in src:
        t *= 0.8
    return t


def main():
    delay = float(__import__("os").environ.get("TDX_TEST_TIMER_DELAY", "0"))
    time.sleep(delay)
    base = model(sys.argv[1])
    cand = model(sys.argv[2]) if sys.argv[2] != "-" else 0.0
    out = {"base_median_s": base, "base_iqr_s": 0.01 * base, "cand_median_s": cand,
           "cand_iqr_s": 0.01 * cand, "fraction": 2e-5 / (cand or base)}
    torch = __import__("os").environ.get("TDX_TEST_TIMER_TORCH")
    if sys.argv[3:4] == ["--torch"] and torch:
        eager, compiled, *build = (float(v) for v in torch.split(","))
        out["torch_eager_median_s"] = eager * base
        out["torch_compile_median_s"] = compiled * base
        if build:
            out["torch_compile_build_s"] = build[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
