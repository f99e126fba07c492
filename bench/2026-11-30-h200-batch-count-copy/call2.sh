#!/usr/bin/env bash
# The component count's early copy on a stream of its own (HostWord), so
# that the kernels after the scan do not wait for it (.gpu/whl-side,
# gpu-pack's archive of the same tree), beside ac1fa57 (.gpu/whl-new: a
# batch without the copy, one image with it in the stream): the Rust
# suite; sanity.py, and under memcheck; test_gpu.py, test_batches.py,
# test_classes.py, test_volumes.py; profile.py, three rounds of alternating
# processes; regions.py --images-only, one round each. Outputs in c2.tgz.
# Carry [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz",
# ".gpu/whl-new", ".gpu/whl-side", ".gpu/pyt"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c2.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-count-copy
SECONDS=0
for tag in new side; do
  python3 -m pip install -q --no-index --no-deps --target /tmp/site-$tag .gpu/whl-$tag/*.whl .gpu/pyt/*.whl
done
timeout 240 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
export PYTHONPATH=/tmp/site-side
timeout 60 python3 bench/2026-11-30-h200-batch-rows/sanity.py > $O/sanity.txt 2>&1
echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 python3 bench/2026-11-30-h200-batch-rows/sanity.py \
  > $O/sanity-memcheck.txt 2>&1
echo "sanity memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:" $O/sanity-memcheck.txt | tail -2
timeout 150 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_gpu.py ccl-python/tests/test_batches.py \
  ccl-python/tests/test_classes.py ccl-python/tests/test_volumes.py > $O/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $O/pytest.txt
pack
for round in 1 2 3; do
  for tag in new side; do
    PYTHONPATH=/tmp/site-$tag timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
  pack
done
for tag in new side; do
  PYTHONPATH=/tmp/site-$tag timeout 60 python3 bench/2026-11-29-h200-class-region-maps/regions.py --images-only \
    --reps 9 --tag $tag, >> $O/regions.csv 2>>$O/regions.err
  echo "regions $tag ${SECONDS}s"
  pack
done
