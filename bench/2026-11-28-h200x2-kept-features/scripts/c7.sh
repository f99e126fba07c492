#!/usr/bin/env bash
# Call 7 (one GPU of two H200): a ccl.dask chunk task's steps timed apart (chunk_steps.py).
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/new .gpx/new/ccl-*.whl .gpx/dask/*.whl || exit 1
PYTHONPATH=/tmp/new timeout 120 python3 bench/2026-11-28-h200x2-kept-features/chunk_steps.py --reps 10 2>&1 | tail -3 | tee $OUT/chunk-steps.txt
