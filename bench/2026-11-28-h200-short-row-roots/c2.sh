#!/usr/bin/env bash
# Call 2: the wheels of a1f12fd ("old") and of this change ("new"), the ccl
# binary of this change. Checks (labels of batches and volumes of 512-pixel
# rows against cpu-rle, ccl verify of the FLSL variants, racecheck and
# memcheck of the band unions), then ncu per kernel and a wall-time A/B.
# From the repository root, carry [".whlt"].
set -u
B=bench/2026-11-28-h200-short-row-roots
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
for w in old new; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl; done
{ SECONDS=0
  echo "== chk2 (new)"; PYTHONPATH=/tmp/site-new timeout 150 python3 bench/2026-11-28-h200-batch-groups/chk2.py 2>&1 | tail -2; echo "${SECONDS}s"
  echo "== verify"; timeout 60 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --cases 20 2>&1 | tail -4
  for tool in memcheck racecheck; do
    echo "== $tool, verify volumes"; timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/ccl verify -a flsl-cd --volumes --random-only --cases 8 2>&1 | tail -2
    echo "== $tool, chkbatch"; PYTHONPATH=/tmp/site-new timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 python3 $B/chkbatch.py 2>&1 | tail -2
  done; echo "${SECONDS}s"
} 2>&1 | tee $OUT/checks.txt
for m in "batch 1 60 4" "batch 16 10 4" "vol-flsl-cd 1 30 6" "vol-flsl-cd 1 60 26"; do for w in new old; do
  echo "== $w $m"; PYTHONPATH=/tmp/site-$w timeout 40 ncu --profile-from-start off --csv --metrics gpu__time_duration.sum python3 bench/2026-11-28-h200-staged-runs/pb.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{gsub(/\(.*$/, "", $5); t[$5] += $NF; s += $NF} END {for (k in t) printf "   %s %.1f\n", k, t[k] / 1000; printf "   total %.1f\n", s / 1000}'
done; done 2>&1 | tee $OUT/ncu.txt
SECONDS=0
for w in new old old new; do PYTHONPATH=/tmp/site-$w timeout 100 python3 bench/2026-11-28-h200-batch-groups/ab.py $w 4 >> $OUT/ab.txt 2>&1; done
echo "ab ${SECONDS}s"
