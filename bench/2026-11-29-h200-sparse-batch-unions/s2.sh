#!/usr/bin/env bash
# Call s2: the choice of unions made once, by the run kernel (wheel "flag"),
# and a band row's links loaded while the row above is joined ("ahead"):
# on "ahead": the test archive of ccl-testkit, ccl-cuda-flsl and ccl-cuda;
# batches, volumes and class maps against cpu-rle; ccl verify; memcheck
# and racecheck; then ncu of every kernel for the wheels base (e46337e),
# flag and ahead. Carry [".whl", ".gpx"]: wheels base/, flag/, ahead/,
# tests-sub.tar.zst, cargo-nextest.xz; .gpx/ccl.xz.
set -u
D=bench/2026-11-29-h200-sparse-batch-unions
S=bench/2026-11-28-h200-short-row-roots
C=bench/2026-11-28-h200-class-runs
B=$D
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
for w in base flag ahead; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whl/$w/*.whl; done
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 200 /tmp/nextest nextest run --archive-file .whl/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
echo "== chksparse"; PYTHONPATH=/tmp/site-ahead timeout 150 python3 $D/chksparse.py 2>&1 | tail -1
for c in $S/chkbatch.py bench/2026-11-28-h200-batch-groups/chk2.py $C/check.py; do echo "== $(basename $c .py)"; (cd $(dirname $c) && PYTHONPATH=/tmp/site-ahead timeout 120 python3 $(basename $c) 2>&1 | tail -1); done
echo "== verify"; timeout 60 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf -a auto --cases 12 2>&1 | tail -3
echo "== memcheck chksparse quick"; PYTHONPATH=/tmp/site-ahead timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $D/chksparse.py quick 2>&1 | tail -2
echo "== racecheck chksparse quick"; PYTHONPATH=/tmp/site-ahead timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $D/chksparse.py quick 2>&1 | tail -2
echo "== memcheck chkbatch"; (cd $S && PYTHONPATH=/tmp/site-ahead timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "== memcheck check quick"; PYTHONPATH=/tmp/site-ahead timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "== racecheck check quick"; PYTHONPATH=/tmp/site-ahead timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $C/check.py quick 2>&1 | tail -2
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
CONFIGS=""
for c in 4 8; do for g in 1 4 16; do for d in 10 20 30 60 75 90; do CONFIGS="$CONFIGS batch-$g-$d-$c"; done; done; done
CONFIGS="$CONFIGS vol-flsl-cd-1-30-6 vol-flsl-cd-4-60-26"
for w in base flag ahead; do
  echo "== $w"
  PYTHONPATH=/tmp/site-$w timeout 100 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $B/bm.py ncu $CONFIGS > /tmp/ncu-$w.csv 2>/dev/null
  python3 $D/unions.py /tmp/ncu-$w.csv $CONFIGS
  cp /tmp/ncu-$w.csv $OUT/
  echo "${SECONDS}s"
done 2>&1 | tee $OUT/ncu.txt
