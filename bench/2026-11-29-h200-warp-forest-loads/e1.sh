#!/usr/bin/env bash
# Call 1: the band unions' finds through L1 (CCL_FOREST_WARP), this code's
# wheel ("new", .gpu/whl-exp) against a748047's ("old", .gpu/whl-base).
# The GPU-against-host check of batches, class batches and volumes
# (band-forests' check.py) large, and small under memcheck and racecheck;
# ncu's band-union times per call of both wheels (band-forests' ab.py
# --reps 1, its kernels.py); ab.py's wall times, alternating processes, one
# round; time_batch_peers.py's g = 1 cells beside CV-CUDA, two rounds.
# Carry [".gpu/whl-exp", ".gpu/whl-base", ".gpu/peers"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf /tmp/site /tmp/site-old /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-exp/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-base/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
B=bench/2026-11-29-h200-band-forests
SECONDS=0
PYTHONPATH=/tmp/site timeout 90 python3 $B/check.py --size large > $OUT/check-large.txt 2>&1
echo "check large rc=$? ${SECONDS}s"; grep -c "^ok" $OUT/check-large.txt; grep -v "^ok" $OUT/check-large.txt | tail -3
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 python3 $B/check.py --size small > $OUT/check-$tool.txt 2>&1
  echo "check $tool rc=$? ${SECONDS}s"; grep -c "^ok" $OUT/check-$tool.txt; grep -E "SUMMARY|MISMATCH" $OUT/check-$tool.txt | tail -2
done
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 150 ncu -k regex:"band_unions|class_runs|classes_local" --metrics gpu__time_duration.sum --csv \
    python3 $B/ab.py --tag $tag --reps 1 --volumes > $OUT/ncu-$tag.txt 2>&1
  echo "ncu $tag rc=$? ${SECONDS}s"
done
python3 $B/kernels.py $OUT/ncu-old.txt $OUT/ncu-new.txt > $OUT/kernels.md 2>&1; echo "kernels rc=$?"; cat $OUT/kernels.md | head -70
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 100 python3 $B/ab.py --tag $tag >> $OUT/ab.csv 2>&1
  echo "ab $tag rc=$? ${SECONDS}s"
done
for round in 1 2; do
  PYTHONPATH=/tmp/site:/tmp/cvc timeout 120 python3 scripts/peers/time_batch_peers.py --densities 60,75,90 \
    --granularities 1 --reps 15 --loop-reps 1 --out $OUT/batch-peers-$round.csv > $OUT/batch-peers-$round.txt 2>&1
  echo "peers round $round rc=$? ${SECONDS}s"; grep "c=4" $OUT/batch-peers-$round.txt
done
