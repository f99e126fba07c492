#!/usr/bin/env bash
# Call c1: the pixel pass on rows of up to 512 pixels several a warp
# ("new") against the code before (e1761ed, "head"): the test archive of
# the crates it touches, the batch and class checks, sanitizers, ncu per
# kernel and an A/B of the batch's wall time. Carry [".whl"]: wheels head
# and new, tests-sub.tar.zst, ccl.xz, cargo-nextest.xz.
set -u
S=bench/2026-11-28-h200-short-row-roots
C=bench/2026-11-28-h200-class-runs
P=bench/2026-11-28-h200-staged-runs/pb.py
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in head new; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whl/$w/*.whl; done
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whl/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
for c in $S/chkbatch.py bench/2026-11-28-h200-batch-groups/chk2.py $C/check.py; do echo "== $(basename $c .py)"; (cd $(dirname $c) && PYTHONPATH=/tmp/site-new timeout 120 python3 $(basename $c) 2>&1 | tail -1); done
echo "== verify"; timeout 60 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf -a auto --cases 20 2>&1 | tail -3
echo "== memcheck verify"; timeout 80 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl --random-only --cases 8 2>&1 | tail -2
echo "== memcheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== racecheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-new timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== memcheck check quick"; PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
kernels() {
  grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); printf "%-34s %9.1f us\n", n[1], v / 1000; s += v} END {printf "%-34s %9.1f us\n", "total", s / 1000}'
}
for m in "head batch 16 10 4" "new batch 16 10 4" "new one 16 10 4" "head batch 4 10 4" "new batch 4 10 4" "new one 4 10 4" "new batch 1 10 4" "new one 1 10 4" "new batch 4 30 4" "new one 4 30 4"; do
  set -- $m; w=$1; shift
  echo "== $w $*"
  PYTHONPATH=/tmp/site-$w timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $P $* 2>/dev/null | kernels
done 2>&1 | tee $OUT/ncu.txt
echo "ncu ${SECONDS}s"
for round in 1 2; do for m in "batch 1 10 4" "batch 1 30 4" "batch 4 10 4" "batch 4 30 4" "batch 16 10 4" "batch 16 30 4" "batch 16 10 8" "batch 4 10 8"; do for w in head new; do
  echo "$w $(PYTHONPATH=/tmp/site-$w timeout 40 python3 $P $m time)"
done; done; done 2>&1 | tee $OUT/ab.txt
echo "all ${SECONDS}s"
