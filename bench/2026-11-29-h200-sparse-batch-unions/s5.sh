#!/usr/bin/env bash
# Call s5: the flat unions of a sparse batch in the band unions' warps, a
# warp per band all rows at once, the choice read from the run kernel's
# word (wheel "warpflat", the code kept): the test archive of ccl-testkit,
# ccl-cuda-flsl and ccl-cuda; batches, volumes and class maps against
# cpu-rle; memcheck and racecheck; ncu of every kernel (base, flag and
# flag2 are in s3/, same configurations); then the README's batch table
# (scripts/peers/time_batch_peers.py beside CV-CUDA 0.19). Carry [".whl"]:
# warpflat/, tests-sub.tar.zst, cargo-nextest.xz, cvcuda/.
set -u
D=bench/2026-11-29-h200-sparse-batch-unions
S=bench/2026-11-28-h200-short-row-roots
C=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/warpflat/*.whl
mkdir -p /tmp/cvc && tar -xJf .whl/cvcuda/cvcuda-sm90.tar.xz -C /tmp/cvc
export PYTHONPATH=/tmp/site
SECONDS=0
{
INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1 timeout 150 /tmp/nextest nextest run --archive-file .whl/tests-sub.tar.zst \
  --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "^ +(FAIL|SIGSEGV|SIGABRT|TIMEOUT)|Summary"
echo "tests ${SECONDS}s"
echo "== chksparse"; timeout 100 python3 $D/chksparse.py 2>&1 | tail -1
for c in $S/chkbatch.py bench/2026-11-28-h200-batch-groups/chk2.py $C/check.py; do echo "== $(basename $c .py)"; (cd $(dirname $c) && timeout 100 python3 $(basename $c) 2>&1 | tail -1); done
echo "== memcheck chksparse quick"; timeout 80 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $D/chksparse.py quick 2>&1 | tail -2
echo "== racecheck chksparse quick"; timeout 80 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $D/chksparse.py quick 2>&1 | tail -2
echo "== memcheck chkbatch"; (cd $S && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 chkbatch.py 2>&1 | tail -2)
echo "checks ${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
CONFIGS=""
for c in 4 8; do for g in 1 4 16; do for d in 10 20 30 60 75 90; do CONFIGS="$CONFIGS batch-$g-$d-$c"; done; done; done
CONFIGS="$CONFIGS vol-flsl-cd-1-30-6 vol-flsl-cd-4-60-26"
{
echo "== warpflat"
timeout 60 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $D/bm.py ncu $CONFIGS > $OUT/ncu-warpflat.csv 2>/dev/null
python3 $D/unions.py $OUT/ncu-warpflat.csv $CONFIGS
echo "${SECONDS}s"
} 2>&1 | tee $OUT/ncu.txt
PYTHONPATH=/tmp/site:/tmp/cvc timeout 220 python3 scripts/peers/time_batch_peers.py --loop-reps 1 --out $OUT/batch-peers.csv > $OUT/batch-peers.txt 2>&1
tail -9 $OUT/batch-peers.txt
echo "all ${SECONDS}s"
