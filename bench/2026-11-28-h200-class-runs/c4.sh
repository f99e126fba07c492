#!/usr/bin/env bash
# Call 4: the class stage keeps each run's link (FLSL_CLASS_NEXT) and bytes
# are packed four to a register. As call 3 (tests, check.py for "new" and
# "runs", ab.py new / runs / old / new, ncu per kernel, sanitizers); then,
# where the tests and checks passed, the README's table
# (scripts/peers/time-classes with cc3d 4.1.1 carried) and pytest's class
# tests on the GPU with the final wheel. Carry [".whlt"].
set -u
B=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in old new runs; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl .whlt/peers/*.whl; done
SECONDS=0
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whlt/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | tee $OUT/tests.log | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary" | tee $OUT/tests.txt
echo "tests ${SECONDS}s"
ok=1
for w in new runs; do PYTHONPATH=/tmp/site-$w timeout 120 python3 $B/check.py > $OUT/check-$w.txt 2>&1 || ok=0; tail -3 $OUT/check-$w.txt | sed "s/^/$w: /"; done | tee $OUT/check.txt
grep -q "FAIL" $OUT/check.txt $OUT/tests.txt && ok=0
for w in new runs old new; do PYTHONPATH=/tmp/site-$w timeout 60 python3 $B/ab.py $w; done 2>&1 | tee $OUT/ab.csv
for m in "4 90 8" "4 60 4" "4 30 4" "1 60 4"; do
  echo "== classes $m"
  PYTHONPATH=/tmp/site-new timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/pc.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); printf "%-34s %9.1f us\n", n[1], v / 1000; s += v} END {printf "%-34s %9.1f us\n", "total", s / 1000}'
done 2>&1 | tee $OUT/ncu.txt
echo "ncu done ${SECONDS}s"
{ echo "== memcheck check quick (runs)"; PYTHONPATH=/tmp/site-runs timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -3
  echo "== racecheck check quick (runs)"; PYTHONPATH=/tmp/site-runs timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -3
  echo "== memcheck verify"; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --random-only --cases 6 2>&1 | tail -4
} 2>&1 | tee $OUT/sanitizers.txt
echo "sanitizers ${SECONDS}s"
[ $ok = 1 ] || { echo "checks failed: no table"; exit 1; }
PYTHONPATH=/tmp/site-new timeout 150 python3 scripts/peers/time_classes.py --reps 5 --out $OUT/classes.csv > $OUT/classes.txt 2>&1; tail -2 $OUT/classes.txt
echo "table ${SECONDS}s"
PYTHONPATH=/tmp/site-new timeout 120 python3 -m pytest -q -x ccl-python/tests/test_classes.py ccl-python/tests/test_classes_filters.py 2>&1 | tail -3 | tee $OUT/pytest.txt
echo "all ${SECONDS}s"
