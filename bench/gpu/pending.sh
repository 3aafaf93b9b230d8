#!/usr/bin/env bash
# One call on the GPU machine: the measurements bench/RESULTS.md is waiting
# for, each under its own timeout, its table in $OUT/<name>.md (stderr beside
# it), all tables printed at the end. Run from the repository root with the
# built binary carried (TDX, default build/tritondx).
#
#   TDX=build-gpu/tritondx bash bench/gpu/pending.sh     # ~6 min
#
#   check_cost     what a check costs, its parts; the comparison on the GPU
#                  against the old host path (prediction: >= 10x faster)
#   mm_fp32        the fp32 matmul's kept kernel in grouped order, 4 stages,
#                  256 x 128 (prediction: grouped 3-6 % faster)
#   bmm            bmm_fp16's kept kernel at other tiles and stages
#   conv_x3        conv1d / conv2d through tf32x3 (tensor-cores' second
#                  candidate) and the implicit GEMMs in tf32x3
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
run check_cost 150 python3 bench/gpu/check_cost.py
run mm_fp32 120 python3 bench/gpu/mm_fp32_variants.py
run bmm 100 python3 bench/gpu/bmm_variants.py
run conv_x3 150 env ONLY=x3 python3 bench/gpu/conv_variants.py
for f in env.txt check_cost.md mm_fp32.md bmm.md conv_x3.md; do
    echo "### $f"
    cat "$OUT/$f"
done
