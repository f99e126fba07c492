#!/usr/bin/env bash
# The votes leave each run's rank for the last pass (flsl_number_voted_runs):
# the Rust suite on gpu-pack's archive of this code; check.py (every kind of
# filter, images and batches, against the CPU) large, and small under
# memcheck and racecheck; keep-largest-keys' check.py large; the filter
# and GPU pytest files; then keep-largest-keys' ab.py against the wheel of
# fb213f5's kernels (.gpu/whl-f, built at 526e508: the same .cu files but
# for a comment), three rounds of alternating processes; ncu's kernel times
# of one label(largest=1) at 8192^2, 10 %, g = 1, each wheel.
# Carry [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz",
# ".gpu/whl-new", ".gpu/whl-f", ".gpu/pyt"].
set -u
SECONDS=0
here=bench/2026-11-29-h200-voted-ranks; K=bench/2026-11-29-h200-keep-largest-keys
timeout 230 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-new/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-f/*.whl
export PYTHONPATH=/tmp/site
timeout 90 python3 $here/check.py --size large > $OUT/check-large.txt 2>&1; echo "check large rc=$? ${SECONDS}s"; tail -1 $OUT/check-large.txt
timeout 60 python3 $K/check.py --size large > $OUT/keep-large.txt 2>&1; echo "keep large rc=$? ${SECONDS}s"; tail -1 $OUT/keep-large.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 python3 $here/check.py --densities 10,60 --granularities 1 > $OUT/check-$tool.txt 2>&1
  echo "check $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:|FAILED" $OUT/check-$tool.txt | tail -2
done
timeout 120 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_filters.py \
  ccl-python/tests/test_classes_filters.py ccl-python/tests/test_gpu.py > $OUT/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $OUT/pytest.txt
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $K/ab.py --tag $tag >> $OUT/ab.csv 2>>$OUT/ab.err
  done
  echo "round $round ${SECONDS}s"
done
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 60 ncu --metrics gpu__time_duration.sum --csv \
    python3 $K/ab.py --tag $tag --densities 10 --granularities 1 --reps 1 > $OUT/ncu-$tag.txt 2>&1
  echo "ncu $tag rc=$? ${SECONDS}s"
done
# The batch cells under 0.8 of one image (bench/2026-11-29-h200-batch-g16):
# wall times, then ncu's kernels of one call of each, at the timed calls'
# clocks and warm caches.
P=bench/2026-11-29-h200-batch-g16
mkdir -p $OUT/batch-g16
timeout 60 python3 $P/profile.py > $OUT/batch-g16/wall.csv 2>&1; echo "batch wall rc=$? ${SECONDS}s"; cat $OUT/batch-g16/wall.csv
timeout 90 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
  python3 $P/profile.py --cells 10:16:4,30:16:4 --reps 1 > $OUT/batch-g16/ncu-warm.txt 2>&1
echo "batch ncu rc=$? ${SECONDS}s"
