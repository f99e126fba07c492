#!/usr/bin/env bash
# On the GPU machine's 16 host cores (carry [".gpu"]: gpu-pack's archive,
# .gpu/whl the wheel whose roots are numbered on the pool, .gpu/whl-old
# 7a72de9's, .gpu/cc3d): ccl-cpu's tests, ab.py two rounds and vab.py one,
# alternating processes of the two wheels.
set -u
rm -rf /tmp/site-new /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site-new .gpu/whl/*.whl .gpu/cc3d/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl .gpu/cc3d/*.whl
SECONDS=0
timeout 120 .gpu/run-tests -E 'package(ccl-cpu)' > $OUT/tests.txt 2>&1; echo "ccl-cpu tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -5
for round in 1 2; do
  for tag in old new; do
    PYTHONPATH=/tmp/site-$tag timeout 120 python3 bench/2026-11-29-cpu-classes-into/ab.py --tag $tag >> $OUT/ab.csv 2>> $OUT/ab.err
    echo "ab $tag $round ${SECONDS}s"
  done
done
for tag in old new; do
  PYTHONPATH=/tmp/site-$tag timeout 120 python3 bench/2026-11-29-cpu-classes-pool/vab.py --tag $tag >> $OUT/vab.csv 2>> $OUT/vab.err
  echo "vab $tag ${SECONDS}s"
done
