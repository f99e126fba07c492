#!/usr/bin/env bash
# Call p2: the class run kernel's stage at 768 ("s768") and 512 ("s512")
# runs a warp instead of 1024 ("base"): more blocks an SM (p1: 28 %
# theoretical occupancy, limited by the stage's shared memory). ncu per
# call, then wall time. Carry [".whl"]: wheels base, s768, s512.
set -u
D=bench/2026-11-29-h200-class-profile
W="base s768 s512"
for w in $W; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whl/$w/*.whl; done
CONFIGS="img-1-30-4 img-1-60-4 img-1-60-8 img-4-30-4 img-4-90-8 batch-1-30-8 batch-4-60-8 batch-4-90-8"
SECONDS=0
for w in $W; do
  echo "== $w"
  PYTHONPATH=/tmp/site-$w timeout 100 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $D/cm.py ncu $CONFIGS > /tmp/ncu-$w.csv 2>/dev/null
  python3 $D/kernels.py /tmp/ncu-$w.csv $CONFIGS
  echo "${SECONDS}s"
done 2>&1 | tee $OUT/ncu.txt
for w in $W; do
  PYTHONPATH=/tmp/site-$w timeout 100 python3 $D/cm.py time $CONFIGS | sed "s/^/$w /"
done 2>&1 | tee $OUT/time.txt
echo "all ${SECONDS}s"
