#!/usr/bin/env bash
# Call 3: the volume joins store both band roots' joined root (as the binary
# joins do). check.py large, small under memcheck and racecheck; ncu's kernel
# times (vone.py); vab.py, this wheel against d6a02e7's, one round.
# Carry [".gpu/whl", ".gpu/whl-old"].
set -u
SECONDS=0
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
here=bench/2026-11-29-h200-class-volume-runs
PYTHONPATH=/tmp/site timeout 120 python3 $here/check.py --size large > $OUT/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -1 $OUT/check.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 150 compute-sanitizer --tool $tool python3 $here/check.py --size small > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH" $OUT/$tool.txt | tail -2
done
PYTHONPATH=/tmp/site timeout 200 ncu --metrics gpu__time_duration.sum --csv python3 $here/vone.py \
  60,1,6 60,1,26 30,1,26 30,4,26 60,4,26 90,4,26 > $OUT/ncu.txt 2>&1; echo "ncu rc=$? ${SECONDS}s"
python3 $here/vkernels.py $OUT/ncu.txt | grep -E "^d=|volume_joins|band_unions"
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 100 python3 $here/vab.py --tag $tag --reps 9 >> $OUT/vab.csv 2>>$OUT/vab.err
done
echo "vab ${SECONDS}s"
