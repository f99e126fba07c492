#!/usr/bin/env bash
# The last CUDA edit (0fc50a3: the per-group atomic of the root count as
# one shared helper, ccl_add_group_roots, in features.cu's ccl_count_roots
# and flsl's group count): the Rust suite on gpu-pack's archive, then
# sanity.py under memcheck and racecheck (device time left: ~240 s).
# Outputs in c10.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl-rows"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c10.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
timeout 175 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl
export PYTHONPATH=/tmp/site
for tool in memcheck racecheck; do
  timeout 30 compute-sanitizer --tool $tool --error-exitcode 1 python3 $here/sanity.py > $O/sanity-$tool.txt 2>&1
  echo "sanity $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:|FAILED" $O/sanity-$tool.txt | tail -2
done
pack
