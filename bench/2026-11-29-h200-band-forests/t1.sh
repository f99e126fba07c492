#!/usr/bin/env bash
# Call 1 (carry [".gpu"], .gpu/whl-old holding ba5eeee's wheel): the whole
# suite, the GPU-against-host check of batches, class batches and volumes
# (check.py) alone and under racecheck and memcheck, and ncu's time of the
# band union kernels per call for both wheels (ab.py --reps 1).
set -u
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl.xz'), open('.gpu/ccl', 'wb'))"; chmod +x .gpu/ccl
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
B=bench/2026-11-29-h200-band-forests
SECONDS=0
timeout 250 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -12
SECONDS=0
PYTHONPATH=/tmp/site timeout 90 python3 $B/check.py --size large > $OUT/check-large.txt 2>&1; echo "check large rc=$? ${SECONDS}s"; grep -c "^ok" $OUT/check-large.txt; grep -v "^ok" $OUT/check-large.txt | tail -5
SECONDS=0
PYTHONPATH=/tmp/site timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/check.py > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$? ${SECONDS}s"; grep -E "RACECHECK SUMMARY|MISMATCH" $OUT/racecheck.txt; grep -c "^ok" $OUT/racecheck.txt
SECONDS=0
PYTHONPATH=/tmp/site timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$? ${SECONDS}s"; grep -E "ERROR SUMMARY|MISMATCH" $OUT/memcheck.txt; grep -c "^ok" $OUT/memcheck.txt
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  SECONDS=0
  PYTHONPATH=$site timeout 120 ncu -k regex:"band_unions|class_runs|classes_local" --metrics gpu__time_duration.sum --csv python3 $B/ab.py --tag $tag --reps 1 > $OUT/ncu-$tag.txt 2>&1
  echo "ncu $tag rc=$? ${SECONDS}s"
done
