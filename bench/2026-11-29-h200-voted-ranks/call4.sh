#!/usr/bin/env bash
# The Python package's whole pytest suite on the GPU, on the wheel of the
# final code (.gpu/whl-new2, 5b5f3ee's kernels), with the CI's peers
# (cc3d, dask, dask-image) and CV-CUDA. Carry [".gpu/whl-new2", ".gpu/pyt",
# ".gpu/peers"].
set -u
rm -rf /tmp/site /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-new2/*.whl .gpu/pyt/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
SECONDS=0
PYTHONPATH=/tmp/site:/tmp/cvc timeout 420 python3 -m pytest -q -p no:cacheprovider -rs ccl-python/tests > /tmp/pytest-full.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; grep -E "passed|failed|FAILED|SKIPPED.*cvcuda" /tmp/pytest-full.txt | tail -8
xz -c /tmp/pytest-full.txt > $OUT/pytest-full.txt.xz
