#!/usr/bin/env bash
# Call 8 (two H200): ccl.dask with the faces' pairs in native code (new) against e4644f6 (old),
# one worker and one per GPU, in the order new, old; then test_dask.py on the new wheel.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=/tmp/r; mkdir -p $R
for w in old new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx/$w/ccl-*.whl || exit 1; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/dask .gpx/dask/*.whl || exit 1
for w in new old; do for n in 1 2; do
  PYTHONPATH=/tmp/$w:/tmp/dask timeout 60 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $n --threads-per-worker 8 --libraries ccl-dask --out $R/dask-$w-$n.csv > $R/dask-$w-$n.log 2>&1
  echo "$w workers=$n rc=$? $(grep 'ccl-dask c=' $R/dask-$w-$n.log)"
done; done 2>&1 | tee $R/dask.txt
PYTHONPATH=/tmp/new:/tmp/dask timeout 60 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_dask.py -k "distributed or cupy" 2>&1 | tail -n 1 | tee $R/tests-dask.txt
tar czf $OUT/c8.tgz -C /tmp r
