#!/usr/bin/env bash
# Call 7 (two H200): merge memory and border-plane buffers kept (new) against the traced wheel of 767cabe (old); a trace of the new.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 INSTA_WORKSPACE_ROOT="$PWD"
R=$OUT
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
CCL_REQUIRE_GPU=1 timeout 100 /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "FAIL|panicked|Summary" | tee $R/tests.txt
for w in old new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx/$w/ccl-*.whl || exit 1; done
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/gpx_per_s=[0-9.]*, //'; }
for round in 1 2; do for w in old new; do
  echo "== $w pinned round $round"
  PYTHONPATH=/tmp/$w timeout 120 python3 scripts/scale/time_devices.py --reps 4 --calls label --input pinned > /tmp/ab-$w-$round.log 2>&1; short < /tmp/ab-$w-$round.log | grep "case=" | grep -v whole
done; done 2>&1 | tee $R/ab.txt
CCL_TRACE_STRIPS=/tmp/trace.csv PYTHONPATH=/tmp/new timeout 100 python3 scripts/scale/time_devices.py --calls label --image 0 --volume-connectivity 6 --input pinned --reps 3 > $R/traced.log 2>&1
python3 scripts/scale/trace_summary.py /tmp/trace.csv --timeline > $R/summary-traced.txt
grep "^call\|merge \|its steps\|pass 1 \|comparisons" $R/summary-traced.txt | tail -20
