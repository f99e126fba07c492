#!/usr/bin/env bash
# The checks the last session could not run after 54d25b5 (vote_areas' shared
# giant component), on the wheel of 7065000 (no CUDA change since 54d25b5 but
# a comment): the Python package's whole pytest suite on the GPU with the CI's
# peers (cc3d, dask, dask-image) and CV-CUDA (test_cvcuda.py, new), then
# keep-largest-keys' check.py under memcheck.
# Carry [".gpu/whl-h", ".gpu/pyt", ".gpu/peers"].
set -u
rm -rf /tmp/site /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-h/*.whl .gpu/pyt/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
SECONDS=0
PYTHONPATH=/tmp/site:/tmp/cvc timeout 400 python3 -m pytest -q -p no:cacheprovider -rs ccl-python/tests > $OUT/pytest-full.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; grep -E "passed|failed|SKIPPED.*cvcuda" $OUT/pytest-full.txt | tail -6
K=bench/2026-11-29-h200-keep-largest-keys
SECONDS=0
PYTHONPATH=/tmp/site timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $K/check.py > $OUT/keep-memcheck.txt 2>&1
echo "keep memcheck rc=$? ${SECONDS}s"; grep -E "ERROR SUMMARY|ok " $OUT/keep-memcheck.txt | tail -2
