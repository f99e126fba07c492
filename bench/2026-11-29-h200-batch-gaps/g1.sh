#!/usr/bin/env bash
# Call: gaps.py on this code's wheel (.gpu/whl) for three batch cells, then
# ncu at the timed calls' clocks (--clock-control none) for the kernels'
# sum of one call each. Carry [".gpu/whl"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
here=bench/2026-11-29-h200-batch-gaps
cells=75:1:4,60:1:8,30:4:4,10:16:4
PYTHONPATH=/tmp/site python3 $here/gaps.py --cells $cells --reps 40 > $OUT/gaps.csv 2>$OUT/gaps.err
PYTHONPATH=/tmp/site python3 $here/gaps.py --cells $cells --reps 40 >> $OUT/gaps.csv 2>>$OUT/gaps.err
cat $OUT/gaps.csv; echo "timed ${SECONDS}s"
PYTHONPATH=/tmp/site timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv \
  python3 $here/gaps.py --cells $cells --reps 1 > $OUT/ncu.txt 2>&1
echo "ncu rc=$? ${SECONDS}s"
