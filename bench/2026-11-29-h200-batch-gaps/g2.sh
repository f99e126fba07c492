#!/usr/bin/env bash
# Call: overhead.py on this code's wheel. Carry [".gpu/whl"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
PYTHONPATH=/tmp/site python3 bench/2026-11-29-h200-batch-gaps/overhead.py --reps 200 > $OUT/overhead.txt 2>&1
echo rc=$?; head -4 $OUT/overhead.txt; sed -n 5,60p $OUT/overhead.txt | cut -c1-150
