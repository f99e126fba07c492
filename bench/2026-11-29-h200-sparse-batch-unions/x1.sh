#!/usr/bin/env bash
# Call x1: a batch's unions flat (as one image's rows, CCL_BATCH_FLAT=1 in
# the wheel `envflat`, a measuring switch not kept) against in bands, at
# every density and g, 4- and 8-conn.; ncu per config, then wall time.
# Carry [".whl"].
set -u
D=bench/2026-11-29-h200-sparse-batch-unions
B=bench/2026-11-29-h200-flat-bands
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/envflat/*.whl
export PYTHONPATH=/tmp/site
CONFIGS=""
for c in 4 8; do for g in 1 4 16; do for d in 10 20 30 45 60 75 90; do CONFIGS="$CONFIGS batch-$g-$d-$c"; done; done; done
ONE="one-1-10-4 one-4-10-4 one-16-10-4 one-1-30-4 one-1-10-8 one-16-10-8"
SECONDS=0
CCL_BATCH_FLAT=1 timeout 60 python3 bench/2026-11-28-h200-short-row-roots/chkbatch.py 2>&1 | tail -3 | tee $OUT/check.txt
for mode in bands flat; do
  echo "== $mode"
  if [ $mode = flat ]; then export CCL_BATCH_FLAT=1; else unset CCL_BATCH_FLAT; fi
  timeout 200 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/bm.py ncu $CONFIGS $ONE > /tmp/ncu-$mode.csv 2>/dev/null
  python3 $D/unions.py /tmp/ncu-$mode.csv $CONFIGS $ONE
  echo "${SECONDS}s"
done 2>&1 | tee $OUT/ncu.txt
for mode in bands flat; do
  if [ $mode = flat ]; then export CCL_BATCH_FLAT=1; else unset CCL_BATCH_FLAT; fi
  timeout 100 python3 $B/bm.py time $CONFIGS | sed "s/^/$mode /"
done 2>&1 | tee $OUT/time.txt
echo "all ${SECONDS}s"
