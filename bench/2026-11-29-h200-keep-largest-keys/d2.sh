#!/usr/bin/env bash
# Call 2: ab.py, this wheel ("new") against 254373a's ("old": keys written
# and read), alternating processes, three rounds; then ncu's kernel times of
# one label(largest=1) of the 8192^2 image at 10 %, g = 1, each wheel.
# Carry [".gpu/whl", ".gpu/whl-prev"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-prev/*.whl
here=bench/2026-11-29-h200-keep-largest-keys
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 100 python3 $here/ab.py --tag $tag >> $OUT/ab.csv 2>>$OUT/ab.err
  done
  echo "round $round ${SECONDS}s"
done
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 100 ncu --metrics gpu__time_duration.sum --csv \
    python3 $here/ab.py --tag $tag --densities 10 --granularities 1 --reps 1 > $OUT/ncu-$tag.txt 2>&1
  echo "ncu $tag rc=$? ${SECONDS}s"
done
# Every kernel of the second of two batch calls (256 masks of 512^2, g = 1,
# 75 %, 4-conn.: the one batch cell under 2x CV-CUDA), this wheel.
PYTHONPATH=/tmp/site timeout 100 ncu --metrics gpu__time_duration.sum --csv \
  python3 bench/2026-11-29-h200-band-forests/one.py --density 75 --granularity 1 --connectivity 4 > $OUT/ncu-batch-75-g1.txt 2>&1
echo "ncu batch rc=$? ${SECONDS}s"
