#!/usr/bin/env bash
# Call 2: the class runs' stage of 1024 runs a warp (2 warps a block) and
# their classes a thread per run. Tests, check.py, ab.py (new, old, new),
# ncu per kernel, ncu's sections of the class unions, then memcheck and
# racecheck of check.py's quick maps and memcheck of `ccl verify` of the
# FLSL variants (whose run and pixel walks are now templates). Carry [".whlt"].
set -u
B=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in old new; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl; done
SECONDS=0
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whlt/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | tee $OUT/tests.log | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary" | tee $OUT/tests.txt
echo "tests ${SECONDS}s"
PYTHONPATH=/tmp/site-new timeout 120 python3 $B/check.py 2>&1 | tail -20 | tee $OUT/check.txt
for w in new old new; do PYTHONPATH=/tmp/site-$w timeout 60 python3 $B/ab.py $w; done 2>&1 | tee $OUT/ab.csv
for m in "4 90 8" "4 60 4" "1 60 4" "1 90 8"; do
  echo "== classes $m"
  PYTHONPATH=/tmp/site-new timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/pc.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); printf "%-34s %8.1f\n", n[1], $NF / 1000; s += $NF} END {printf "%-34s %8.1f us\n", "total", s / 1000}'
done 2>&1 | tee $OUT/ncu.txt
PYTHONPATH=/tmp/site-new timeout 60 ncu --profile-from-start off -k regex:flsl_class_unions --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy python3 $B/pc.py 4 90 8 > $OUT/ncu-unions.txt 2>&1
echo "ncu done ${SECONDS}s"
{ echo "== memcheck check quick"; PYTHONPATH=/tmp/site-new timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -3
  echo "== racecheck check quick"; PYTHONPATH=/tmp/site-new timeout 120 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -3
  echo "== memcheck verify"; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl --random-only --cases 6 2>&1 | tail -3
} 2>&1 | tee $OUT/sanitizers.txt
echo "all ${SECONDS}s"
