#!/usr/bin/env bash
# Call c2: the band kernels' layout in one struct (FlslBands / Bands, the
# binary and the class bands alike), on c1's checks, with the pixel pass of
# c1. Carry [".whl"]: the wheel (new/), tests-sub.tar.zst, ccl.xz,
# cargo-nextest.xz.
set -u
S=bench/2026-11-28-h200-short-row-roots
C=bench/2026-11-28-h200-class-runs
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
rm -rf /tmp/site-new; python3 -m pip install -q --no-index --no-deps --target /tmp/site-new .whl/new/*.whl
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whl/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
for c in $S/chkbatch.py bench/2026-11-28-h200-batch-groups/chk2.py $C/check.py; do echo "== $(basename $c .py)"; (cd $(dirname $c) && PYTHONPATH=/tmp/site-new timeout 120 python3 $(basename $c) 2>&1 | tail -1); done
echo "== verify"; timeout 60 /tmp/ccl verify -a flsl-cd -a flsl -a auto --cases 12 2>&1 | tail -3
echo "== memcheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== racecheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-new timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== memcheck check quick"; PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "== racecheck check quick"; PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/c2-checks.txt
