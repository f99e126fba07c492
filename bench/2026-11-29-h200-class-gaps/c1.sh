#!/usr/bin/env bash
# Call 1: the component count copied to the host after the ranking's scan
# (features.rs `EarlyCount`). The whole gpu-pack suite; the gaps of the class
# calls (gaps.py); the class cells, this wheel ("new") against the wheel of
# 620415a ("old") in alternating processes (ab.py); the Python package's GPU
# tests. Carry [".gpu"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
here=bench/2026-11-29-h200-class-gaps
PYTHONPATH=/tmp/site timeout 100 python3 $here/gaps.py > $OUT/gaps.txt 2>/dev/null; echo "gaps rc=$? ${SECONDS}s"
grep "==" $OUT/gaps.txt | awk 'NR % 3 == 2'
for round in 1 2; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 90 python3 $here/ab.py --tag $tag --reps 15 >> $OUT/ab.csv 2>>$OUT/ab.err
  done
done
echo "ab ${SECONDS}s"
PYTHONPATH=/tmp/site timeout $((590 - SECONDS)) python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_gpu.py \
  ccl-python/tests/test_classes.py ccl-python/tests/test_classes_filters.py ccl-python/tests/test_filters.py \
  ccl-python/tests/test_batches.py 2>&1 | tail -3
echo "all ${SECONDS}s"
