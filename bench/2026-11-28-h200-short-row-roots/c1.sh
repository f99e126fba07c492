#!/usr/bin/env bash
# Call 1: the whole test archive with GPU tests required, then memcheck and
# racecheck of the batch and volume conformance kits (every registered
# variant; flsl-cd's band unions among them). From the repository root,
# carry [".gpx"] (gpu-pack's archive and nextest, without the ccl binary).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
export INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1
run() { /tmp/nextest nextest run --archive-file .gpx/tests.tar.zst --workspace-remap "$PWD" --no-fail-fast "$@"; }
SECONDS=0
run 2>&1 | tee $OUT/tests.log | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary" | tee $OUT/tests.txt
echo "tests: ${SECONDS}s"
for tool in memcheck racecheck; do
  SECONDS=0
  timeout 170 compute-sanitizer --tool $tool --error-exitcode 99 --target-processes all \
    /tmp/nextest nextest run --archive-file .gpx/tests.tar.zst --workspace-remap "$PWD" --no-fail-fast \
    -E 'test(every_image_variant_on_batches) | test(=every_volume_variant_on_random_pattern_and_edge_volumes) | test(a_large_volume_at_each_percolation_threshold)' \
    > $OUT/$tool.log 2>&1
  echo "$tool: rc $? ${SECONDS}s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool.log | sort | uniq -c | tr -s ' ' | paste -sd ';') $(grep -E 'Summary' $OUT/$tool.log)"
done | tee $OUT/sanitizers.txt
