#!/usr/bin/env bash
set -uo pipefail
export PYTHONUNBUFFERED=1
R=$OUT; L=/tmp/logs2; mkdir -p $L
{ nvidia-smi --query-gpu=index,name --format=csv,noheader; } | tee $L/machine.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/prev .gpu/prev/ccl-*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/ccl-*.whl || exit 1
PYTHONPATH=/tmp/site timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_strips.py 2>&1 | tail -n 1 | tee $L/tests.txt
short() { grep "case=" | grep -v whole | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //; s/input=numpy, //'; }
for r in 1 2; do for w in site prev; do
  echo "== $w round $r"
  PYTHONPATH=/tmp/$w timeout 120 python3 scripts/scale/time_devices.py --reps 5 --calls label,analyze --input numpy --volume-connectivity 6 --out $L/$w-numpy-$r.csv > $L/$w-numpy-$r.log 2>&1; short < $L/$w-numpy-$r.log; grep -c ": ok" $L/$w-numpy-$r.log
done; done
tar czf $R/logs2.tgz -C /tmp logs2
