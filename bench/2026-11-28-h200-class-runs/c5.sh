#!/usr/bin/env bash
# Call 5: the committed code (the class runs without links, bytes packed
# four to a register, maps of more than 0.6 runs per value to the tiles).
# Tests, check.py for "new" and "runs" (every map by runs), the README's
# table (scripts/peers/time-classes, cc3d 4.1.1 carried) for "new" and "old"
# (HEAD before the change: the tiles), ncu per kernel, sanitizers, and
# pytest's class tests on the GPU. Carry [".whlt"].
set -u
B=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in old new runs; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl .whlt/peers/*.whl; done
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whlt/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
for w in new runs; do echo "== check $w"; PYTHONPATH=/tmp/site-$w timeout 120 python3 $B/check.py 2>&1 | tail -3; done
echo "== pytest"; PYTHONPATH=/tmp/site-new timeout 120 python3 -m pytest -q ccl-python/tests/test_classes.py ccl-python/tests/test_classes_filters.py 2>&1 | tail -2
echo "== memcheck check quick (runs)"; PYTHONPATH=/tmp/site-runs timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -2
echo "== racecheck check quick (runs)"; PYTHONPATH=/tmp/site-runs timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -2
echo "== memcheck check quick (new)"; PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -2
echo "== memcheck verify"; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --random-only --cases 6 2>&1 | tail -4
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
for w in new old; do PYTHONPATH=/tmp/site-$w timeout 100 python3 scripts/peers/time_classes.py --reps 5 --out $OUT/classes-$w.csv > $OUT/classes-$w.txt 2>&1; done
echo "tables ${SECONDS}s"
for m in "4 90 8" "4 60 4" "4 30 4" "1 60 4"; do
  echo "== classes $m"
  PYTHONPATH=/tmp/site-new timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/pc.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); printf "%-34s %9.1f us\n", n[1], v / 1000; s += v} END {printf "%-34s %9.1f us\n", "total", s / 1000}'
done 2>&1 | tee $OUT/ncu.txt
echo "all ${SECONDS}s"
