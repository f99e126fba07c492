#!/usr/bin/env bash
# Call 1 (two H200), code of 02db243: the whole test archive (gpu-pack, carried as .gpx/),
# sanitizers, GPU pytest, THP state, and a trace of the 1024^3 volume (6-conn., pinned).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
R=$OUT
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; } | tee $R/machine.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
timeout 250 .gpx/run-tests 2>&1 | grep -E "FAIL|panicked|Summary|SIGSEGV|TIMEOUT" | head -40 | tee $R/tests.txt
for tool in memcheck racecheck; do
  echo "=== $tool"
  timeout 80 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf -a auto --random-only --cases 8 2>&1 | tail -2
  echo "rc=${PIPESTATUS[0]}"
done 2>&1 | tee $R/sanitizers.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpx/whl/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/site
timeout 150 python3 -m pytest -q -x -p no:cacheprovider ccl-python/tests/test_batches.py ccl-python/tests/test_volumes.py ccl-python/tests/test_gpu.py ccl-python/tests/test_classes.py ccl-python/tests/test_strips.py ccl-python/tests/test_filters.py 2>&1 | tail -n 3 | tee $R/pytest.txt
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //'; }
CCL_TRACE_STRIPS=/tmp/trace-v.csv timeout 150 python3 scripts/scale/time_devices.py --reps 4 --calls label --image 0 --volume-connectivity 6 --input pinned --out $R/vol-pinned.csv 2>&1 | short | tee $R/vol-pinned.log
python3 scripts/scale/trace_summary.py /tmp/trace-v.csv --timeline > $R/summary-vol.txt
