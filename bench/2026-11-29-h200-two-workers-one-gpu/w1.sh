#!/usr/bin/env bash
# Issue 28 on the one kind lent (nvidia-h200, one GPU): the multi-GPU
# paths with two workers on that GPU. `scripts/scale/time_devices.py
# --devices 0,0` (the issue's 32768^2 image, d = 60 %, 4-conn., and 1024^3
# volume, d = 31 %, 6- and 26-conn.: labels and analyses, every split
# result checked equal to the one-worker one), and `ccl.dask.label` of a
# 2048^3 volume in 512^3 CuPy chunks on a distributed LocalCluster of one
# and of two worker processes sharing GPU 0 (dask-cuda is not carried).
# Carry [".whl"]: the ccl wheel (new/) and dask's wheels (dask/).
set -u
export PYTHONUNBUFFERED=1
R=$OUT/w1; mkdir -p $R
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
rm -rf /tmp/site-new /tmp/dask
python3 -m pip install -q --no-index --no-deps --target /tmp/site-new .whl/new/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/dask .whl/dask/*.whl || exit 1
SECONDS=0
short() { grep -v "bandwidth\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/algorithm=default, //; s/gpx_per_s=[0-9.]*, //'; }
PYTHONPATH=/tmp/site-new timeout 200 python3 scripts/scale/time_devices.py --devices 0,0 --reps 3 --out $R/devices.csv > $R/devices.log 2>&1
echo "time_devices rc=$? ${SECONDS}s"; short < $R/devices.log | tail -30
for n in 1 2; do
  PYTHONPATH=/tmp/site-new:/tmp/dask timeout 90 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $n --threads-per-worker 8 --libraries ccl-dask --out $R/dask-$n.csv > $R/dask-$n.log 2>&1
  echo "workers=$n rc=$? $(grep 'ccl-dask c=' $R/dask-$n.log) ${SECONDS}s"
done 2>&1 | tee $R/dask.txt
