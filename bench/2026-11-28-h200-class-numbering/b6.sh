#!/usr/bin/env bash
# Call b6: b5's checks and ncu for the band's runs found by a binary search
# over the lanes' row counts (five shuffles a pass instead of one a row),
# against e92051d ("bandruns"). Carry [".whl"]: wheels bandruns and search,
# tests-sub3.tar.zst, ccl.xz, cargo-nextest.xz.
set -u
S=bench/2026-11-28-h200-short-row-roots
C=bench/2026-11-28-h200-class-runs
P=bench/2026-11-28-h200-staged-runs/pb.py
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in bandruns search; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whl/$w/*.whl; done
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whl/tests-sub3.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
for c in $S/chkbatch.py bench/2026-11-28-h200-batch-groups/chk2.py $C/check.py; do echo "== $(basename $c .py)"; (cd $(dirname $c) && PYTHONPATH=/tmp/site-search timeout 120 python3 $(basename $c) 2>&1 | tail -1); done
echo "== verify"; timeout 60 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --cases 20 2>&1 | tail -3
echo "== memcheck verify"; timeout 80 compute-sanitizer --tool memcheck --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl --random-only --cases 8 2>&1 | tail -2
echo "== memcheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-search timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== racecheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-search timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== memcheck check quick"; PYTHONPATH=/tmp/site-search timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
sum() {
  grep -E '"gpu__time_duration.sum"' | awk -F'","' -v tag="$1" '{v = $NF; gsub(/[",]/, "", v); if ($5 ~ /band_unions/) u += v; s += v}
    END {printf "%-30s band_unions %7.1f  all kernels %7.1f us\n", tag, u / 1000, s / 1000}'
}
for m in "batch 16 10 4" "batch 4 10 4" "batch 1 10 8" "batch 1 30 4" "batch 1 60 4" "batch 1 75 4" "vol-flsl-cd 1 30 6"; do for w in bandruns search; do
  PYTHONPATH=/tmp/site-$w timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $P $m 2>/dev/null | sum "$w $m"
done; done 2>&1 | tee $OUT/ncu.txt
echo "all ${SECONDS}s"
