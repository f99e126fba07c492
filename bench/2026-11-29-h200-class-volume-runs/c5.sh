#!/usr/bin/env bash
# Call 5: the code as committed (6-connectivity volumes of more than 0.35
# runs per value left to the tiles). The whole gpu-pack suite; check.py
# large, small under memcheck and racecheck; vab.py, this wheel ("new")
# against d6a02e7's ("old", the tiles), alternating processes, two rounds;
# a probe wheel (every map to the runs: DEFAULT_RUN_SHARE 1.0, not
# committed) on the cells the committed one leaves to the tiles; pytest of
# the class tests. Carry [".gpu"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 220 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-old /tmp/site-probe
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-probe .gpu/whl-probe/*.whl
here=bench/2026-11-29-h200-class-volume-runs
PYTHONPATH=/tmp/site timeout 120 python3 $here/check.py --size large > $OUT/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -1 $OUT/check.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 150 compute-sanitizer --tool $tool python3 $here/check.py --size small > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH" $OUT/$tool.txt | tail -2
done
for round in 1 2; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 100 python3 $here/vab.py --tag $tag --reps 9 >> $OUT/vab.csv 2>>$OUT/vab.err
  done
done
echo "vab ${SECONDS}s"
PYTHONPATH=/tmp/site-probe timeout 100 python3 $here/vab.py --tag probe --reps 9 --densities 60,90 --granularities 1 >> $OUT/vab-probe.csv 2>>$OUT/vab.err
echo "probe ${SECONDS}s"
PYTHONPATH=/tmp/site timeout $((590 - SECONDS)) python3 -m pytest -q -p no:cacheprovider \
  ccl-python/tests/test_classes.py ccl-python/tests/test_classes_filters.py ccl-python/tests/test_volumes.py 2>&1 | tail -3
echo "all ${SECONDS}s"
