#!/usr/bin/env bash
# Call 7: the Python package's batch tests on the GPU with the wheel of
# 00c80d8 (pytest carried). Carry [".whlt2"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whlt2/*.whl
SECONDS=0
PYTHONPATH=/tmp/site timeout 110 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_batches.py 2>&1 | tail -4 | tee $OUT/pytest.txt
echo "pytest ${SECONDS}s"
