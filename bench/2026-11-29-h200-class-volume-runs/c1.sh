#!/usr/bin/env bash
# Call 1: FLSL's runs for class volumes (flsl_class_volume_joins). The whole
# gpu-pack suite; GPU against host on class volumes (check.py: large,
# then small under memcheck and racecheck); the
# class volume cells, this wheel ("new") against the wheel of d6a02e7 ("old",
# the tiles) in alternating processes (vab.py). Carry [".gpu"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 220 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
here=bench/2026-11-29-h200-class-volume-runs
check=$here/check.py
PYTHONPATH=/tmp/site timeout 120 python3 $check --size large > $OUT/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"
grep -c "^ok" $OUT/check.txt; grep -v "^ok" $OUT/check.txt | tail -3
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 150 compute-sanitizer --tool $tool python3 $check --size small > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH" $OUT/$tool.txt | tail -2
done
for round in 1 2; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 100 python3 $here/vab.py --tag $tag --reps 9 >> $OUT/vab.csv 2>>$OUT/vab.err
  done
done
echo "vab ${SECONDS}s"
PYTHONPATH=/tmp/site timeout $((590 - SECONDS)) python3 -m pytest -q -p no:cacheprovider \
  ccl-python/tests/test_classes.py ccl-python/tests/test_classes_filters.py 2>&1 | tail -3
echo "all ${SECONDS}s"
