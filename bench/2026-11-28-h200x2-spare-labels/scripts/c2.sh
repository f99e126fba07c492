#!/usr/bin/env bash
# Call 2 (two H200): where the first pass and the merge of a 1024^3 volume go, with the scratch
# wheel of ../diagnosis/scratch-instrumentation.patch on 02db243 (.gpx/exp/).
set -u
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
R=$OUT
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/exp .gpx/exp/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/exp
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //; s/, floor_ms.*//; s/first_call_ms=[0-9.]*, //; s/gpx_per_s=[0-9.]*, //'; }
TD="timeout 120 python3 scripts/scale/time_devices.py --calls label --image 0 --volume-connectivity 6 --input pinned"
echo "== traced with syncs"
CCL_TRACE_MERGE=1 CCL_TRACE_SYNC=1 CCL_TRACE_STRIPS=/tmp/trace-s.csv $TD --reps 2 2>&1 | grep -v "^merge" | short
python3 scripts/scale/trace_summary.py /tmp/trace-s.csv --timeline > $R/summary-sync.txt
echo "== merge laps"; CCL_TRACE_MERGE=1 $TD --reps 3 2>&1 | grep "^merge" | tail -24 > $R/merge-laps.txt; tail -14 $R/merge-laps.txt
echo "== pool keep"; CCL_POOL_KEEP=1 $TD --reps 4 2>&1 | short
echo "== base again"; $TD --reps 4 2>&1 | short
for w in 2 8; do echo "== workers $w"; CCL_STRIP_WORKERS=$w $TD --reps 3 2>&1 | short; done
echo "== 8 strips"; CCL_STRIP_PLANES=128 $TD --reps 3 2>&1 | short
echo "== image pool keep"; CCL_POOL_KEEP=1 timeout 120 python3 scripts/scale/time_devices.py --calls label --volume 0 --input pinned --reps 3 2>&1 | short
echo "== image base"; timeout 120 python3 scripts/scale/time_devices.py --calls label --volume 0 --input pinned --reps 3 2>&1 | short
