#!/usr/bin/env bash
# Call 2: ncu's kernel times of class volume calls (vone.py, vkernels.py),
# this wheel. Carry [".gpu/whl"].
set -u
SECONDS=0
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
here=bench/2026-11-29-h200-class-volume-runs
PYTHONPATH=/tmp/site timeout 300 ncu --metrics gpu__time_duration.sum --csv python3 $here/vone.py \
  60,1,6 60,1,26 30,1,26 30,4,26 60,4,26 90,4,26 > $OUT/ncu.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"
python3 $here/vkernels.py $OUT/ncu.txt
