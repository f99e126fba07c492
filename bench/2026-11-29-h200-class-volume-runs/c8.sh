#!/usr/bin/env bash
# Call 8: the rows y - 1 and y + 1 of the slice before skip a run that
# touches, in its plane, a run of row y the run joined (FaceSpans). The
# testkit's class tests and ccl-cuda-flsl's; check.py (with region maps)
# large, small under memcheck and racecheck; vab.py and the region maps'
# volumes, this wheel ("new") against 254373a's ("prev"), alternating, one
# round. Carry [".gpu"].
set -u
SECONDS=0
timeout 120 .gpu/run-tests -E 'binary(classes) | package(ccl-cuda-flsl)' > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-prev
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-prev .gpu/whl-prev/*.whl
here=bench/2026-11-29-h200-class-volume-runs
PYTHONPATH=/tmp/site timeout 150 python3 $here/check.py --size large > $OUT/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -1 $OUT/check.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 150 compute-sanitizer --tool $tool python3 $here/check.py --size small > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH" $OUT/$tool.txt | tail -2
done
for tag in prev new; do
  site=/tmp/site; [ $tag = prev ] && site=/tmp/site-prev
  PYTHONPATH=$site timeout 100 python3 $here/vab.py --tag $tag --reps 9 >> $OUT/vab.csv 2>>$OUT/vab.err
  PYTHONPATH=$site timeout 100 python3 bench/2026-11-29-h200-class-region-maps/regions.py --volumes-only --tag $tag, \
    --reps 9 >> $OUT/vregions.csv 2>>$OUT/vab.err
  echo "$tag ${SECONDS}s"
done
