#!/usr/bin/env bash
# Call f1: class-map batches in bands against all rows at once (cb.py), and
# check.py (class maps and batches against the CPU labeler) with the batches
# all rows at once. Carry [".whl"]: the wheel of 9d204fe plus
# classflat.patch (classflat/).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/classflat/*.whl
export PYTHONPATH=/tmp/site
SECONDS=0
(cd bench/2026-11-28-h200-class-runs && CCL_CLASS_BATCH_FLAT=1 timeout 70 python3 check.py 2>&1 | tail -2) | tee $OUT/check.txt
echo "check ${SECONDS}s"
timeout 140 python3 bench/2026-11-29-h200-class-batch-flat/cb.py 2>&1 | tee $OUT/cb.txt
echo "all ${SECONDS}s"
