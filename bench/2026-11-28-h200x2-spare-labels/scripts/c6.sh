#!/usr/bin/env bash
# Call 6 (two H200): GPU pytest on the wheel of the working tree.
set -u
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpx/new/ccl-*.whl .gpx/dask/*.whl > /dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site
timeout 400 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_batches.py ccl-python/tests/test_volumes.py ccl-python/tests/test_gpu.py ccl-python/tests/test_strips.py 2>&1 | tail -n 4 | tee $OUT/pytest.txt
