#!/usr/bin/env bash
# Call 3 (two H200): 767cabe (.gpx/new/) against 02db243 (.gpx/whl/), interleaved, each input in a
# process of its own; ccl-scale's and ccl-core's tests (nextest archive); a trace of 767cabe.
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1 INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1
R=$OUT
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
timeout 200 /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "FAIL|panicked|Summary" | tee $R/tests-scale.txt
for w in whl new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx/$w/ccl-*.whl || exit 1; done
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/first_call_ms=[0-9.]*, //; s/gpx_per_s=[0-9.]*, //'; }
for round in 1 2; do for w in whl new; do
  echo "== $w volume-6 pinned round $round"
  PYTHONPATH=/tmp/$w timeout 100 python3 scripts/scale/time_devices.py --calls label --image 0 --volume-connectivity 6 --input pinned --reps 4 2>&1 | short | grep -v whole
  echo "== $w image pinned round $round"
  PYTHONPATH=/tmp/$w timeout 100 python3 scripts/scale/time_devices.py --calls label --volume 0 --input pinned --reps 4 2>&1 | short | grep -v whole
done; done 2>&1 | tee $R/ab.txt
CCL_TRACE_STRIPS=/tmp/trace-n.csv PYTHONPATH=/tmp/new timeout 100 python3 scripts/scale/time_devices.py --calls label --image 0 --volume-connectivity 6 --input pinned --reps 3 > /dev/null 2>&1
python3 scripts/scale/trace_summary.py /tmp/trace-n.csv --timeline > $R/summary-new.txt
