#!/usr/bin/env bash
set -uo pipefail
export PYTHONUNBUFFERED=1
L=/tmp/diag; mkdir -p $L
nvidia-smi --query-gpu=index,name --format=csv,noheader | tee $L/machine.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/prev .gpu/prev/ccl-*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/ccl-*.whl || exit 1
for round in 1 2; do
for w in prev site; do
  CCL_TRACE_STRIPS=$L/trace-$w-$round.csv PYTHONPATH=/tmp/$w timeout 150 python3 scripts/scale/time_devices.py --reps 4 --calls analyze --input numpy --volume-connectivity 6 --devices 0,0 > $L/$w-$round.log 2>&1
  echo "== $w round $round"
  grep "case=" $L/$w-$round.log | grep -v whole | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //; s/input=numpy, //'
  python3 scripts/scale/trace_summary.py $L/trace-$w-$round.csv > $L/summary-$w-$round.txt
done
done
tar czf $OUT/diag.tgz -C /tmp diag
