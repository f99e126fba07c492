#!/usr/bin/env bash
# Call 4: flsl_count_roots with several short rows a warp. The tests of
# ccl-testkit, ccl-scale, ccl-cuda-flsl and ccl-cuda (a nextest archive of
# this change), the labels of batches and volumes against cpu-rle, ccl
# verify of the FLSL variants, memcheck and racecheck, then ncu per kernel
# and a wall-time A/B against a1f12fd ("old"). Carry [".whlt"].
set -u
B=bench/2026-11-28-h200-short-row-roots
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in old new; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl; done
SECONDS=0
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whlt/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | tee $OUT/tests.log | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary" | tee $OUT/tests.txt
echo "tests ${SECONDS}s"
{ for c in $B/chkroots.py $B/chkbatch.py bench/2026-11-28-h200-batch-groups/chk2.py; do echo "== $(basename $c .py)"; PYTHONPATH=/tmp/site-new timeout 100 python3 $c 2>&1 | tail -1; done
  echo "== verify"; timeout 60 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --cases 20 2>&1 | tail -3
  echo "== memcheck verify"; timeout 80 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl --random-only --cases 8 2>&1 | tail -3
  echo "== memcheck chkroots"; PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/chkroots.py 2>&1 | tail -2
  echo "== racecheck verify"; timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd --random-only --cases 6 2>&1 | tail -2
  echo "== racecheck chkbatch"; PYTHONPATH=/tmp/site-new timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/chkbatch.py 2>&1 | tail -2
} 2>&1 | tee $OUT/checks.txt
for m in "batch 16 10 4" "batch 1 10 4" "batch 1 60 4" "vol-flsl-cd 1 30 6" "one 1 30 4"; do for w in new old; do
  PYTHONPATH=/tmp/site-$w timeout 40 ncu --profile-from-start off --csv --metrics gpu__time_duration.sum python3 bench/2026-11-28-h200-staged-runs/pb.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' -v tag="$w $m" '{if ($5 ~ /count_roots/) u += $NF; s += $NF} END {printf "%-26s count_roots %6.1f  total %7.1f us\n", tag, u, s}'
done; done 2>&1 | tee $OUT/ncu.txt
for w in new old old new; do PYTHONPATH=/tmp/site-$w timeout 100 python3 bench/2026-11-28-h200-batch-groups/ab.py $w 4 >> $OUT/ab.txt 2>&1; done
