#!/usr/bin/env bash
# One call on the GPU machine: the measurements bench/RESULTS.md is waiting
# for, each under its own timeout, its table in $OUT/<name>.md (stderr beside
# it), all tables printed at the end. Run from the repository root with the
# built binary carried (TDX, default build/tritondx).
#
#   TDX=build-gpu/tritondx bash bench/gpu/pending.sh     # ~5 min
#
#   colred         the column reductions' kept kernels with one knob changed
#                  at a time, the launch's torch ops alone, torch.compile
#                  beside (colred_variants.py)
#   reverse        two-pass kernels with their last pass walked backwards,
#                  whole rows in one block (reverse_variants.py)
#   math           gelu's erf as a short polynomial (math_variants.py)
#   tf32           conv1d's and conv2d's dot as kept (IEEE), rounded tf32,
#                  plain tf32, tf32x3; torch eager and torch.compile
#                  (conv_variants.py, ONLY=tf32)
set -u
OUT=${OUT:-/tmp/tdx-out}
mkdir -p "$OUT"
export TDX=${TDX:-build/tritondx} PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
run() {
    local name=$1 limit=$2
    shift 2
    echo "== $name" >&2
    local t0=$SECONDS
    timeout "$limit" "$@" > "$OUT/$name.md" 2> "$OUT/$name.err"
    echo "rc=$? seconds=$((SECONDS - t0))" >> "$OUT/$name.md"
}
{ date -u; nvidia-smi -L; python3 -c 'import sys,torch,triton;print(sys.version.split()[0], torch.__version__, triton.__version__)'
  "$TDX" --version; } > "$OUT/env.txt" 2>&1
run tf32 150 env ONLY=tf32 python3 bench/gpu/conv_variants.py
run math 90 python3 bench/gpu/math_variants.py
run reverse 120 python3 bench/gpu/reverse_variants.py
run colred 150 python3 bench/gpu/colred_variants.py
for f in env.txt tf32.md math.md reverse.md colred.md; do
    echo "### $f"
    cat "$OUT/$f"
done
