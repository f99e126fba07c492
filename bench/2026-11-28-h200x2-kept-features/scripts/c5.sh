#!/usr/bin/env bash
# Call 5 (two H200): the whole gpu-pack archive at d79e8a3 (after the last CUDA change, d384d0a:
# ccl_count_below in the shared header, the columns kernel), compute-sanitizer memcheck and
# racecheck on the strip tests (kept labels and features, several devices).
set -u
export INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1
R=/tmp/r; mkdir -p $R
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
N() { /tmp/nextest nextest run --archive-file .gpx/tests.tar.zst --workspace-remap "$PWD" --no-fail-fast "$@"; }
timeout 240 bash -c "$(declare -f N); N" > $R/tests.log 2>&1; grep -E "^ +(FAIL|SIGSEGV|SIGABRT)|Summary" $R/tests.log | tee $R/summary.txt
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 --target-processes all /tmp/nextest nextest run --archive-file .gpx/tests.tar.zst --workspace-remap "$PWD" -E 'binary(strips)' --no-fail-fast > $R/$tool-strips.log 2>&1
  echo "$tool strips rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/$tool-strips.log | sort | uniq -c | tr -s ' ' | paste -sd ';') $(grep -E 'Summary' $R/$tool-strips.log)" | tee -a $R/summary.txt
done
tar czf $OUT/c5.tgz -C /tmp r
