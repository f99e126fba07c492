#!/usr/bin/env bash
# The final tree (gpu-pack's archive; .gpu/whl-final its wheel): the Rust
# suite; ../2026-11-30-h200-batch-rows's sanity.py, and under memcheck and
# racecheck; test_batches.py and test_gpu.py. Outputs in c5.tgz.
# Carry [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz",
# ".gpu/whl-final", ".gpu/pyt"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c5.tgz -C $O .; }
SECONDS=0
timeout 240 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-final/*.whl .gpu/pyt/*.whl
export PYTHONPATH=/tmp/site
S=bench/2026-11-30-h200-batch-rows/sanity.py
timeout 60 python3 $S > $O/sanity.txt 2>&1; echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 python3 $S > $O/sanity-$tool.txt 2>&1
  echo "sanity $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:" $O/sanity-$tool.txt | tail -2
done
pack
timeout 100 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_batches.py ccl-python/tests/test_gpu.py \
  > $O/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $O/pytest.txt
pack
