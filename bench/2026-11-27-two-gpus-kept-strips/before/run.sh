#!/usr/bin/env bash
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv
nproc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/site
CCL_TRACE_STRIPS=$OUT/trace.csv python3 scripts/scale/time_devices.py --devices 0,1 --reps 2 --calls label --out $OUT/devices.csv 2>&1 | tee $OUT/devices.log
python3 scripts/scale/trace_summary.py $OUT/trace.csv > $OUT/summary.txt
tail -n 60 $OUT/summary.txt
