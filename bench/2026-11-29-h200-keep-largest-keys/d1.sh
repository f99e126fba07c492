#!/usr/bin/env bash
# Call 1 (code of e79b6ba: merge_new_pair shared by the binary and class
# volume joins; keep-largest of one image without keys). The gpu-pack
# suite; keep-largest against the CPU (large, then small under memcheck and
# racecheck); the class volumes against the CPU (class-volume-runs'
# check.py, large, then small under both sanitizers). Carry [".gpu"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 230 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
here=bench/2026-11-29-h200-keep-largest-keys
volumes=bench/2026-11-29-h200-class-volume-runs
PYTHONPATH=/tmp/site timeout 60 python3 $here/check.py --size large > $OUT/check-large.txt 2>&1; echo "keep check rc=$? ${SECONDS}s"; tail -1 $OUT/check-large.txt
PYTHONPATH=/tmp/site timeout 120 python3 $volumes/check.py --size large > $OUT/classes-large.txt 2>&1; echo "classes check rc=$? ${SECONDS}s"; tail -1 $OUT/classes-large.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 60 compute-sanitizer --tool $tool python3 $here/check.py > $OUT/keep-$tool.txt 2>&1
  echo "keep $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH|ok " $OUT/keep-$tool.txt | tail -2
  PYTHONPATH=/tmp/site timeout 120 compute-sanitizer --tool $tool python3 $volumes/check.py --size small > $OUT/classes-$tool.txt 2>&1
  echo "classes $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|MISMATCH" $OUT/classes-$tool.txt | tail -2
done
echo "all ${SECONDS}s"
