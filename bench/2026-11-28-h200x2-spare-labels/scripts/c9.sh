#!/usr/bin/env bash
# Call 9 (two H200), code of 5e9c108: the whole test archive; traces of ccl.analyze (numpy) on one GPU and on two.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
R=$OUT
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
timeout 220 .gpx/run-tests 2>&1 | grep -E "FAIL|panicked|Summary|SIGSEGV|TIMEOUT" | head -40 | tee $R/tests.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpx/new/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/site
CCL_TRACE_STRIPS=/tmp/trace-a.csv timeout 150 python3 scripts/scale/time_devices.py --reps 2 --calls analyze --input numpy --volume-connectivity 6 > $R/analyze.log 2>&1
grep "case=" $R/analyze.log | grep -v whole | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //'
python3 scripts/scale/trace_summary.py /tmp/trace-a.csv > $R/summary-analyze.txt
grep "^call\|pass\|features\|merge " $R/summary-analyze.txt | tail -40
