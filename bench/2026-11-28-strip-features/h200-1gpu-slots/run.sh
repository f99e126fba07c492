#!/usr/bin/env bash
set -uo pipefail
export PYTHONUNBUFFERED=1
L=/tmp/diag2; mkdir -p $L
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee $L/machine.txt
for w in whl wA wB; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/s-$w .gpu/$w/ccl-*.whl || exit 1; done
for round in 1 2; do
for w in whl wA wB; do
  CCL_TRACE_STRIPS=$L/trace-$w-$round.csv PYTHONPATH=/tmp/s-$w timeout 150 python3 scripts/scale/time_devices.py --reps 4 --calls label,analyze --input numpy --volume-connectivity 6 --devices 0,0 > $L/$w-$round.log 2>&1
  echo "== $w round $round"
  grep "case=" $L/$w-$round.log | grep -v whole | grep "1gpu" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //; s/input=numpy, //; s/, speedup_over_1gpu=.*//'
  grep -c ": ok" $L/$w-$round.log
done
done
tar czf $OUT/diag2.tgz -C /tmp diag2
