#!/usr/bin/env bash
# Class maps of regions (regions.py) with the wheel of 254373a. Carry [".gpu/whl"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
PYTHONPATH=/tmp/site timeout 500 python3 bench/2026-11-29-h200-class-region-maps/regions.py --reps 9 > $OUT/regions.csv 2> $OUT/regions.err
echo "regions rc=$? ${SECONDS}s"; cat $OUT/regions.csv
