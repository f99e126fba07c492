#!/usr/bin/env bash
# Call: the Python wrapper trimmed (this wheel, "new") against 027fcbd's
# ("old"): overhead.py and gaps.py in alternating processes, three rounds;
# then pytest of the GPU, batch and volume tests on this wheel.
# Carry [".gpu/whl", ".gpu/whl-prev", ".gpu/pyt"].
set -u
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-prev/*.whl
here=bench/2026-11-29-h200-batch-gaps
SECONDS=0
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site python3 $here/overhead.py --reps 300 2>&1 | head -4 | sed "s/^/$round,$tag,/" >> $OUT/overhead.csv
    PYTHONPATH=$site python3 $here/gaps.py --cells 75:1:4,60:1:8,30:4:4,10:16:4 --reps 40 2>&1 | sed "s/^/$round,$tag,/" >> $OUT/gaps.csv
  done
done
echo "timed ${SECONDS}s"; cat $OUT/overhead.csv
PYTHONPATH=/tmp/site timeout 300 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_gpu.py \
  ccl-python/tests/test_batches.py ccl-python/tests/test_errors.py > $OUT/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -2 $OUT/pytest.txt
