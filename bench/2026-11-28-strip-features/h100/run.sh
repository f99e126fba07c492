#!/usr/bin/env bash
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=$OUT
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } | tee $R/machine.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/site
{ timeout 240 .gpu/run-tests 2>&1 | tail -n 3
  timeout 120 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_strips.py 2>&1 | tail -n 1; } | tee $R/tests.txt
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //'; }
CCL_TRACE_STRIPS=/tmp/trace-n.csv timeout 300 python3 scripts/scale/time_devices.py --reps 5 --calls label,analyze --input numpy --out $R/devices-numpy.csv > $R/devices-numpy.log 2>&1; short < $R/devices-numpy.log
python3 scripts/scale/trace_summary.py /tmp/trace-n.csv > $R/summary-numpy.txt
cp /tmp/trace-n.csv $R/trace-numpy.csv
