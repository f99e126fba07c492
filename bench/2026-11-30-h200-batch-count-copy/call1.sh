#!/usr/bin/env bash
# An unfiltered batch's labeling without the component count's early copy
# to the host (.gpu/whl-new, gpu-pack's archive of the same tree) beside
# 5703fad (.gpu/whl-head): the Rust suite; ../2026-11-30-h200-batch-rows's
# sanity.py; test_batches.py and test_gpu.py; profile.py, three rounds of
# alternating processes of the two wheels. Outputs in c1.tgz. Carry
# [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz",
# ".gpu/whl-head", ".gpu/whl-new", ".gpu/pyt"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c1.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-count-copy
SECONDS=0
for tag in head new; do
  python3 -m pip install -q --no-index --no-deps --target /tmp/site-$tag .gpu/whl-$tag/*.whl .gpu/pyt/*.whl
done
timeout 240 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
export PYTHONPATH=/tmp/site-new
timeout 60 python3 bench/2026-11-30-h200-batch-rows/sanity.py > $O/sanity.txt 2>&1
echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
timeout 120 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_batches.py \
  ccl-python/tests/test_gpu.py > $O/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $O/pytest.txt
pack
for round in 1 2 3; do
  for tag in head new; do
    PYTHONPATH=/tmp/site-$tag timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
  pack
done
