#!/usr/bin/env bash
# Call 3 (code of the commit after e79b6ba: the largest key read by the last
# pass, the range test's grid striding). The gpu-pack suite; keep-largest
# against the CPU (large, then small under memcheck and racecheck); pytest
# of the filters on the GPU (cc3d beside); ab.py against 254373a's wheel,
# alternating processes, three rounds; ncu's kernel times of one
# label(largest=1) at 8192^2, 10 %, g = 1, each wheel; ncu's sections of the
# batch's flsl_number_runs (256 x 512^2, g = 1, 75 %, 4-conn.).
# Carry [".gpu"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 230 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-prev/*.whl
here=bench/2026-11-29-h200-keep-largest-keys
PYTHONPATH=/tmp/site timeout 60 python3 $here/check.py --size large > $OUT/check-large.txt 2>&1; echo "keep check rc=$? ${SECONDS}s"; tail -1 $OUT/check-large.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 60 compute-sanitizer --tool $tool python3 $here/check.py > $OUT/keep-$tool.txt 2>&1
  echo "keep $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH|ok " $OUT/keep-$tool.txt | tail -2
done
PYTHONPATH=/tmp/site timeout 120 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_filters.py \
  ccl-python/tests/test_classes_filters.py ccl-python/tests/test_gpu.py > $OUT/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $OUT/pytest.txt
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 100 python3 $here/ab.py --tag $tag >> $OUT/ab.csv 2>>$OUT/ab.err
  done
  echo "round $round ${SECONDS}s"
done
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 100 ncu --metrics gpu__time_duration.sum --csv \
    python3 $here/ab.py --tag $tag --densities 10 --granularities 1 --reps 1 > $OUT/ncu-$tag.txt 2>&1
  echo "ncu $tag rc=$? ${SECONDS}s"
done
PYTHONPATH=/tmp/site timeout 100 ncu -k regex:flsl_number_runs --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
  python3 bench/2026-11-29-h200-band-forests/one.py --density 75 --granularity 1 --connectivity 4 > $OUT/ncu-number-runs.txt 2>&1
echo "ncu number_runs rc=$? ${SECONDS}s"
