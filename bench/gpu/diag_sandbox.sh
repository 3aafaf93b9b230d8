#!/usr/bin/env bash
# Which layer of the candidate sandbox lets CUDA start: the loop on one task
# with the network namespace and the write confinement switched on and off.
export PYTHONPATH=$PWD/python
T=bench/tasks/elementwise_add.py
for combo in "1 0" "0 1" "1 1"; do
  set -- $combo
  echo "== loop: TRITONDX_SANDBOX_NET=$1 TRITONDX_SANDBOX_FS=$2"
  rm -rf /tmp/r$1$2
  TRITONDX_SANDBOX_NET=$1 TRITONDX_SANDBOX_FS=$2 timeout 150 build/tritondx optimize --no-progress --rounds 1 \
    --candidates 1 --max-level 0 --run-dir /tmp/r$1$2 --out /tmp/r$1$2.opt.py $T 2>&1 | tail -4 | cut -c1-400
done
