#!/usr/bin/env bash
# Call 4: binary batches and one image, the wheel of this code ("new",
# HostWord) against that of 620415a ("old"), alternating processes, two
# rounds each (abbatch.py). Carry [".gpu/whl", ".gpu/whl-old"].
set -u
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
SECONDS=0
for round in 1 2; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 bench/2026-11-29-h200-class-gaps/abbatch.py --tag $tag >> $OUT/abbatch.csv 2>>$OUT/abbatch.err
    echo "$tag $round ${SECONDS}s"
  done
done
