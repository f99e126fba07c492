#!/usr/bin/env bash
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=$OUT
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; cat /sys/kernel/mm/transparent_hugepage/enabled; } | tee $R/machine.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/base .gpu/base/ccl-*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl || exit 1
short() { grep "case=" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/first_call_ms=[0-9.]*, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //'; }
for round in 1; do
for w in base site; do
  echo "== $w numpy round $round"
  PYTHONPATH=/tmp/$w timeout 280 python3 scripts/scale/time_devices.py --reps 5 --calls label,analyze --input numpy --out $R/$w-numpy-$round.csv > $R/$w-numpy-$round.log 2>&1; short < $R/$w-numpy-$round.log
  grep -c ": ok" $R/$w-numpy-$round.log
done
[ $round = 1 ] && for w in base site; do
  echo "== $w pinned"
  PYTHONPATH=/tmp/$w timeout 200 python3 scripts/scale/time_devices.py --reps 5 --calls label --input pinned --out $R/$w-pinned.csv > $R/$w-pinned.log 2>&1; short < $R/$w-pinned.log
done
done
export PYTHONPATH=/tmp/site
timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_dask.py -k "distributed or cupy" 2>&1 | tail -n 1 | tee $R/tests-dask.txt
for w in 1 2; do
  timeout 150 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $w --threads-per-worker 8 --libraries ccl-dask --out $R/dask-$w.csv > $R/dask-$w.log 2>&1
  echo "dask workers=$w rc=$?" >> $R/dask-$w.log; grep 'ccl-dask c=\|rc=' $R/dask-$w.log
done
