#!/usr/bin/env bash
# Call 1: class maps' images by FLSL's runs. The tests of ccl-testkit,
# ccl-cuda-flsl and ccl-cuda (a nextest archive of this change), check.py
# (device against host, every value size, batches), then ab.py for the new
# wheel and the old (HEAD before the change) in alternating rounds, and ncu
# per kernel of two maps. Carry [".whlt"].
set -u
B=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in old new; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl; done
SECONDS=0
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 240 /tmp/nextest nextest run --archive-file .whlt/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | tee $OUT/tests.log | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary" | tee $OUT/tests.txt
echo "tests ${SECONDS}s"
PYTHONPATH=/tmp/site-new timeout 150 python3 $B/check.py 2>&1 | tail -20 | tee $OUT/check.txt
for w in new old new old; do PYTHONPATH=/tmp/site-$w timeout 100 python3 $B/ab.py $w; done 2>&1 | tee $OUT/ab.csv
for m in "4 90 8" "4 30 4" "1 60 4" "1 90 8"; do for k in classes binary; do
  extra=""; [ $k = binary ] && extra=binary
  echo "== $k $m"
  PYTHONPATH=/tmp/site-new timeout 60 ncu --profile-from-start off --csv --metrics gpu__time_duration.sum python3 $B/pc.py $m $extra 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); printf "%-34s %8.1f\n", n[1], $NF; s += $NF} END {printf "%-34s %8.1f us\n", "total", s}'
done; done 2>&1 | tee $OUT/ncu.txt
