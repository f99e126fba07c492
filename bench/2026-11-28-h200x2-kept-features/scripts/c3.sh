#!/usr/bin/env bash
# Call 3 (two H200): ccl.dask before (old: 9a5859a's parent) and after (new: the join in native
# code on all cores, as the eager pass's last task; lookups of the merged labels only), one
# worker and one per GPU; the dask tests on GPUs; the table on the new wheel.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=/tmp/r; mkdir -p $R; B=bench/2026-11-28-h200x2-kept-features
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
for w in old new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx/$w/ccl-*.whl || exit 1; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/dask .gpx/dask/*.whl || exit 1
for round in 1; do for w in new old; do for n in 1 2; do
  PYTHONPATH=/tmp/$w:/tmp/dask timeout 100 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $n --threads-per-worker 8 --libraries ccl-dask --out $R/dask-$w-$n-$round.csv > $R/dask-$w-$n-$round.log 2>&1
  echo "round $round $w workers=$n rc=$? $(grep 'ccl-dask c=' $R/dask-$w-$n-$round.log)"
done; done; done 2>&1 | tee $R/dask.txt
export PYTHONPATH=/tmp/new:/tmp/dask
timeout 60 python3 $B/profile_dask.py --workers 2 --reps 2 > $R/profile-2.txt 2>&1
timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_dask.py 2>&1 | tail -n 1 | tee $R/tests-dask.txt
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //'; }
timeout 200 python3 scripts/scale/time_devices.py --reps 4 --calls label,analyze --input numpy --out $R/devices-numpy.csv > $R/devices-numpy.log 2>&1; short < $R/devices-numpy.log | grep "case=\|rror" | grep -v whole
timeout 100 python3 scripts/scale/time_devices.py --reps 4 --calls label --input pinned --out $R/devices-pinned.csv > $R/devices-pinned.log 2>&1; short < $R/devices-pinned.log | grep "case=\|rror" | grep -v whole
tar czf $OUT/c3.tgz -C /tmp r
