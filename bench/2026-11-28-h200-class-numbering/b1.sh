#!/usr/bin/env bash
# Call b1 (after the whole test archive of bc8f424, run alone: it fills a
# call's 64 MiB): the tests of ccl-testkit, ccl-cuda-flsl and ccl-cuda (a
# nextest archive, GPU required), the wheel's class checks (check.py,
# pytest's class tests, memcheck and racecheck of check.py's quick maps),
# ab.py and ncu of the class kernels. Carry [".whl"]: the wheel and the test
# archive of the code with the batch's class bands, cc3d 4.1.1's wheel and
# cargo-nextest.xz.
set -u
C=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/new/*.whl .whl/peers/*.whl
export PYTHONPATH=/tmp/site
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whl/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
echo "== check"; timeout 120 python3 $C/check.py 2>&1 | tail -3
echo "== pytest"; timeout 120 python3 -m pytest -q ccl-python/tests/test_classes.py ccl-python/tests/test_classes_filters.py 2>&1 | tail -2
echo "== memcheck check quick"; timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "== racecheck check quick"; timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
timeout 60 python3 $C/ab.py new 2>&1 | tee $OUT/ab.csv
for m in "4 30 4" "1 30 4" "1 60 4" "4 90 8"; do
  echo "== classes $m"
  timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $C/pc.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); printf "%-34s %9.1f us\n", n[1], v / 1000; s += v} END {printf "%-34s %9.1f us\n", "total", s / 1000}'
done 2>&1 | tee $OUT/ncu.txt
echo "all ${SECONDS}s"
