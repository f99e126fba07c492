#!/usr/bin/env bash
# Call 1 (two H200): ccl-scale's tests, the analyses of the table on the wheel before
# (old) and after (new), a trace, a profile of ccl.dask, memcheck on the strip tests.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 INSTA_WORKSPACE_ROOT="$PWD"
R=$OUT; B=bench/2026-11-28-h200x2-kept-features
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
T() { CCL_REQUIRE_GPU=1 /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" --no-fail-fast "$@"; }
timeout 120 bash -c "$(declare -f T); T" 2>&1 | grep -E "FAIL|panicked|Summary" | tee $R/tests.txt
for w in old new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx/$w/ccl-*.whl || exit 1; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/dask .gpx/dask/*.whl || exit 1
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //'; }
for round in 1; do for w in old new; do
  echo "== $w round $round"
  PYTHONPATH=/tmp/$w:/tmp/dask timeout 140 python3 scripts/scale/time_devices.py --reps 4 --calls analyze --input numpy --out $R/analyze-$w-$round.csv > $R/analyze-$w-$round.log 2>&1; short < $R/analyze-$w-$round.log | grep "case=\|ok\|rror" | grep -v whole
done; done 2>&1 | tee $R/ab.txt
export PYTHONPATH=/tmp/new:/tmp/dask
CCL_TRACE_STRIPS=/tmp/trace.csv timeout 60 python3 scripts/scale/time_devices.py --calls analyze --volume 0 --input numpy --reps 2 > $R/traced.log 2>&1
python3 scripts/scale/trace_summary.py /tmp/trace.csv --timeline > $R/summary-traced.txt 2>&1
for w in 1 2; do timeout 90 python3 $B/profile_dask.py --workers $w --reps 2 > $R/dask-$w.txt 2>&1; echo "rc=$?" >> $R/dask-$w.txt; done
grep "rep \|rc=" $R/dask-*.txt
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 99 --target-processes all /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" -E 'binary(strips)' --no-fail-fast > $R/memcheck-strips.log 2>&1; echo "memcheck rc=$?" | tee -a $R/tests.txt
grep -E "ERROR SUMMARY|Summary" $R/memcheck-strips.log | sort | uniq -c | tee -a $R/tests.txt
