#!/usr/bin/env bash
# Call 5 (two H200): the traced merge of the 1024^3 volume; ccl.dask on one worker and one per GPU.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=$OUT
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpx/new/ccl-*.whl .gpx/dask/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/old .gpx/old/ccl-*.whl || exit 1
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //'; }
for round in 1 2; do for w in old site; do
  echo "== $w pinned round $round"
  PYTHONPATH=/tmp/$w timeout 120 python3 scripts/scale/time_devices.py --reps 4 --calls label --input pinned > /tmp/ab-$w-$round.log 2>&1; short < /tmp/ab-$w-$round.log | grep "case=" | grep -v whole
done; done 2>&1 | tee $R/ab.txt
export PYTHONPATH=/tmp/site
CCL_TRACE_STRIPS=/tmp/trace.csv timeout 100 python3 scripts/scale/time_devices.py --calls label --image 0 --volume-connectivity 6 --input pinned --reps 3 > $R/traced.log 2>&1
python3 scripts/scale/trace_summary.py /tmp/trace.csv --timeline > $R/summary-traced.txt
grep "^call\|merge \|its steps\|pass\|comparisons" $R/summary-traced.txt | tail -24
timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_dask.py -k "distributed or cupy" 2>&1 | tail -n 1 | tee $R/tests-dask.txt
for w in 1 2; do
  timeout 150 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $w --threads-per-worker 8 --libraries ccl-dask --out /tmp/dask-$w.csv > /tmp/dask-$w.log 2>&1
  echo "dask workers=$w rc=$?" >> /tmp/dask-$w.log; grep "ccl-dask c=\|rc=" /tmp/dask-$w.log | tee -a $R/dask.txt
done
