#!/usr/bin/env bash
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=$OUT
nvidia-smi --query-gpu=index,name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl > /tmp/pip.txt 2>&1 || { cat /tmp/pip.txt; exit 1; }
export PYTHONPATH=/tmp/site
timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_dask.py -k "distributed or cupy" 2>&1 | tail -n 1 | tee $R/tests-dask.txt
for w in 1 2; do
  timeout 150 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $w --threads-per-worker 8 --libraries ccl-dask --out $R/dask-$w.csv > $R/dask-$w.log 2>&1
  echo "dask workers=$w rc=$?" >> $R/dask-$w.log; grep 'ccl-dask c=\|rc=' $R/dask-$w.log
done
for w in 2 1; do timeout 100 python3 bench/2026-11-27-h200x2-two-gpus/dask_phases.py --workers $w --reps 2 2>&1 | grep workers= | tee $R/dask-phases-$w.txt; done
