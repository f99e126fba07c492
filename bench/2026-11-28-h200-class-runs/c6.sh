#!/usr/bin/env bash
# Call 6: the packing's run count added once a block (one atomic a block
# instead of a warp). check.py, pytest's class tests, memcheck and
# racecheck of check.py's quick maps, ab.py, and ncu of the packing.
# Carry [".whlt"] (new wheel and cc3d's only).
set -u
B=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
rm -rf /tmp/site-new; python3 -m pip install -q --no-index --no-deps --target /tmp/site-new .whlt/new/*.whl .whlt/peers/*.whl
SECONDS=0
{
echo "== check"; PYTHONPATH=/tmp/site-new timeout 60 python3 $B/check.py 2>&1 | tail -3
echo "== pytest"; PYTHONPATH=/tmp/site-new timeout 60 python3 -m pytest -q ccl-python/tests/test_classes.py 2>&1 | tail -1
echo "== memcheck check quick"; PYTHONPATH=/tmp/site-new timeout 50 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -2
echo "== racecheck check quick"; PYTHONPATH=/tmp/site-new timeout 50 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -2
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
PYTHONPATH=/tmp/site-new timeout 40 python3 $B/ab.py new 2>&1 | tee $OUT/ab.csv
for m in "4 30 4" "1 60 4"; do
  echo "== classes $m"
  PYTHONPATH=/tmp/site-new timeout 25 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/pc.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); printf "%-34s %9.1f us\n", n[1], v / 1000; s += v} END {printf "%-34s %9.1f us\n", "total", s / 1000}'
done 2>&1 | tee $OUT/ncu.txt
echo "all ${SECONDS}s"
