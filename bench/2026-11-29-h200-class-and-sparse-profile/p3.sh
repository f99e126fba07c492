#!/usr/bin/env bash
# Call 3: the final code's (7e8e1c7, .gpu/whl-p) keep-largest ratios on
# 8192^2 images (keep-largest-keys' ab.py, median of 15) and the region
# maps' ratios (class-region-maps' regions.py). Carry [".gpu/whl-p"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-p/*.whl
SECONDS=0
PYTHONPATH=/tmp/site timeout 100 python3 bench/2026-11-29-h200-keep-largest-keys/ab.py --tag 7e8e1c7 \
  --densities 10,30,60,90 --granularities 1,4 > $OUT/keep-ab.csv 2>&1
echo "keep rc=$? ${SECONDS}s"
PYTHONPATH=/tmp/site timeout 100 python3 bench/2026-11-29-h200-class-region-maps/regions.py --reps 9 --tag 7e8e1c7, > $OUT/regions.csv 2>&1
echo "regions rc=$? ${SECONDS}s"
