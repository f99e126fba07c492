#!/usr/bin/env bash
# Call 7: the committed code (254373a's wheel; 7b642c2 changed no code) on
# check.py with the region maps: large, small under memcheck and racecheck.
# Carry [".gpu/whl-prev"].
set -u
SECONDS=0
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-prev/*.whl
here=bench/2026-11-29-h200-class-volume-runs
PYTHONPATH=/tmp/site timeout 150 python3 $here/check.py --size large > $OUT/check.txt 2>&1; echo "check rc=$? ${SECONDS}s"; tail -1 $OUT/check.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 150 compute-sanitizer --tool $tool python3 $here/check.py --size small > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH" $OUT/$tool.txt | tail -2
done
