#!/usr/bin/env bash
# Call f1: a band's unions all rows at once (a lane per run) where its rows
# average at most 32 ("t32") or 64 ("t64") runs, or always ("tall"),
# against row after row ("base": 6303c2e). ncu per config, then wall
# time, two rounds. Carry [".whl"]: wheels base, t32, t64, tall.
set -u
D=bench/2026-11-29-h200-flat-bands
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
W="base t32 t64 tall"
for w in $W; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whl/$w/*.whl; done
CONFIGS="batch-1-10-4 batch-1-30-4 batch-1-60-4 batch-1-75-4 batch-1-90-4 batch-4-10-4 batch-4-30-4 batch-4-90-4 batch-16-10-4 batch-16-60-4 batch-1-10-8 vol-flsl-cd-1-10-6 vol-flsl-cd-4-30-6 vol-flsl-cd-1-60-26"
SECONDS=0
for w in $W; do
  echo "== $w"
  PYTHONPATH=/tmp/site-$w timeout 120 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $D/bm.py ncu $CONFIGS > /tmp/ncu-$w.csv 2>/dev/null
  python3 $D/kernels.py /tmp/ncu-$w.csv $CONFIGS
  echo "${SECONDS}s"
done 2>&1 | tee $OUT/ncu.txt
for round in 1 2; do for w in $W; do
  PYTHONPATH=/tmp/site-$w timeout 100 python3 $D/bm.py time $CONFIGS | sed "s/^/$w /"
done; done 2>&1 | tee $OUT/time.txt
echo "all ${SECONDS}s"
