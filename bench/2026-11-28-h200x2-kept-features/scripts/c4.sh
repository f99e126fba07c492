#!/usr/bin/env bash
# Call 4 (two H200): where a ccl.dask.label call's time goes, on the wheel of 8efdfcc:
# profile_dask.py with one worker and with one per GPU.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=/tmp/r; mkdir -p $R; B=bench/2026-11-28-h200x2-kept-features
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/new .gpx/new/ccl-*.whl .gpx/dask/*.whl || exit 1
export PYTHONPATH=/tmp/new
for n in 2 1; do timeout 80 python3 $B/profile_dask.py --workers $n --reps 2 2>&1 | grep -v "warn\|Consider\|or using\|See also\|This may\|^ *$" > $R/profile-$n.txt; done
grep "rep \|plan\|_" $R/profile-*.txt | grep -v "ccl-dask-plan:\(piece\|last\|count\|face-labels\)"
tar czf $OUT/c4.tgz -C /tmp r
