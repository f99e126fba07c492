#!/usr/bin/env bash
# Call 3 (carry [".gpu/whl", ".gpu/whl-old"]): the 16-bit band forests at full
# occupancy. check.py alone and under racecheck and memcheck, then ncu's
# band union times of both wheels (ab.py --reps 1) and ncu's sections of
# the new kernel at g = 1, 75 %, 4-conn.
set -u
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
B=bench/2026-11-29-h200-band-forests
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
python3 $B/kernels.py $OUT/ncu-old.txt $OUT/ncu-new.txt
PYTHONPATH=/tmp/site timeout 60 ncu -k regex:flsl_band_unions --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  python3 $B/one.py --density 75 --granularity 1 > $OUT/ncu-sections-new-d75-g1.txt 2>&1
grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Registers Per|Warp Cycles Per Issued|Static Shared" $OUT/ncu-sections-new-d75-g1.txt
