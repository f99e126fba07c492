#!/usr/bin/env bash
# The final code (HEAD's kernels but the group root count of call8.sh):
# the Rust suite on gpu-pack's archive; sanity.py, and under memcheck and
# racecheck; the batch, class, volume and GPU pytest files; the batch
# table's g = 16 cells (time_batch_peers.py, 15 reps, without CV-CUDA, as
# in call7.sh). Outputs in c9.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl-rows", ".gpu/pyt"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c9.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
timeout 240 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl .gpu/pyt/*.whl
export PYTHONPATH=/tmp/site
timeout 60 python3 $here/sanity.py > $O/sanity.txt 2>&1; echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 python3 $here/sanity.py > $O/sanity-$tool.txt 2>&1
  echo "sanity $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:|FAILED" $O/sanity-$tool.txt | tail -2
done
pack
timeout 110 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_batches.py ccl-python/tests/test_classes.py \
  ccl-python/tests/test_volumes.py ccl-python/tests/test_gpu.py > $O/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $O/pytest.txt
pack
timeout 100 python3 scripts/peers/time_batch_peers.py --densities 10,30 --granularities 16 \
  --reps 15 --loop-reps 1 --out $O/batch-peers.csv > $O/batch-peers.txt 2>&1
echo "batch table rc=$? ${SECONDS}s"; tail -6 $O/batch-peers.txt
pack
