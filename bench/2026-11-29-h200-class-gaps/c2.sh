#!/usr/bin/env bash
# Call 2: the class map's run count through a HostWord too (page-locked,
# waits for the packing alone). The whole gpu-pack suite; pytest of the
# class, GPU and filter tests; the gaps again; then the README's class table
# (scripts/peers/time_classes.py, cc3d 4.1.1 carried). Carry [".gpu", ".whl/cc3d"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 200 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl .whl/cc3d/*.whl
export PYTHONPATH=/tmp/site
here=bench/2026-11-29-h200-class-gaps
timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_classes.py ccl-python/tests/test_gpu.py \
  ccl-python/tests/test_classes_filters.py 2>&1 | tail -2
echo "pytest ${SECONDS}s"
timeout 60 python3 $here/gaps.py > $OUT/gaps.txt 2>/dev/null; echo "gaps rc=$? ${SECONDS}s"
grep "==" $OUT/gaps.txt | awk 'NR % 3 == 2'
timeout 150 python3 scripts/peers/time_classes.py --reps 5 --out $OUT/classes.csv > $OUT/classes.txt 2>&1
echo "classes rc=$? ${SECONDS}s"
