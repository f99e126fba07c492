#!/usr/bin/env bash
# Call 3: the run walk links each run to a run above of its value where the
# planes show one (same_up, same_up_left), and maps of more than 0.6 runs
# per value go to the tiles. Tests, check.py, ab.py for the final wheel
# ("new"), the same code taking every map by runs ("runs", DEFAULT_RUN_SHARE
# = 1.0) and HEAD before the change ("old": tiles), ncu per kernel, then
# memcheck / racecheck of check.py's quick maps and memcheck of `ccl verify`
# of the FLSL variants. Carry [".whlt"].
set -u
B=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in old new runs; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl; done
SECONDS=0
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whlt/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | tee $OUT/tests.log | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary" | tee $OUT/tests.txt
echo "tests ${SECONDS}s"
for w in new runs; do PYTHONPATH=/tmp/site-$w timeout 120 python3 $B/check.py 2>&1 | tail -5 | sed "s/^/$w: /"; done | tee $OUT/check.txt
for w in new runs old new; do PYTHONPATH=/tmp/site-$w timeout 60 python3 $B/ab.py $w; done 2>&1 | tee $OUT/ab.csv
for m in "4 90 8" "4 60 4" "4 30 4" "1 60 4"; do
  echo "== classes $m"
  PYTHONPATH=/tmp/site-new timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/pc.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); printf "%-34s %10s %s\n", n[1], $NF, $(NF-1); s += $NF} END {printf "%-34s %10s\n", "total", s}'
done 2>&1 | tee $OUT/ncu.txt
echo "ncu done ${SECONDS}s"
{ echo "== memcheck check quick (runs)"; PYTHONPATH=/tmp/site-runs timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -3
  echo "== racecheck check quick (runs)"; PYTHONPATH=/tmp/site-runs timeout 120 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/check.py quick 2>&1 | tail -3
  echo "== memcheck verify"; timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --random-only --cases 6 2>&1 | tail -4
} 2>&1 | tee $OUT/sanitizers.txt
echo "all ${SECONDS}s"
