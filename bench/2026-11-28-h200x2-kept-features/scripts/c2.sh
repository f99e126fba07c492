#!/usr/bin/env bash
# Call 2 (two H200): ccl-scale's tests; the analyses before (old) and after (new: columns faulted
# in on the pool, continued labels added in parallel), alternating; traces of the new analyses.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 INSTA_WORKSPACE_ROOT="$PWD"
R=/tmp/r; mkdir -p $R
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
CCL_REQUIRE_GPU=1 timeout 120 /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "FAIL|panicked|Summary" | tee $R/tests.txt
for w in old new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx/$w/ccl-*.whl || exit 1; done
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //'; }
for w in new old; do
  echo "== $w"
  PYTHONPATH=/tmp/$w timeout 140 python3 scripts/scale/time_devices.py --reps 4 --calls analyze --input numpy --volume-connectivity 6 --out $R/analyze-$w.csv > $R/analyze-$w.log 2>&1; short < $R/analyze-$w.log | grep "case=\|rror\|: ok" | grep -v whole
done 2>&1 | tee $R/ab.txt
export PYTHONPATH=/tmp/new
for case in "--volume 0" "--image 0 --volume-connectivity 6"; do
  rm -f /tmp/trace.csv
  CCL_TRACE_STRIPS=/tmp/trace.csv timeout 80 python3 scripts/scale/time_devices.py --calls analyze $case --input numpy --reps 2 > /tmp/traced.log 2>&1
  python3 scripts/scale/trace_summary.py /tmp/trace.csv --timeline > "$R/summary-${case// /}.txt" 2>&1
  cp /tmp/trace.csv "$R/trace-${case// /}.csv"
done
tar czf $OUT/c2.tgz -C /tmp r
