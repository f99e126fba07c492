#!/usr/bin/env bash
# On the GPU machine's 16 host cores (carry [".gpu/whl", ".gpu/whl-old",
# ".gpu/cc3d"]): vab.py (256^3 class volumes beside cc3d) in alternating
# processes of this code's wheel and ba5eeee's, two rounds.
set -u
rm -rf /tmp/site-new /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site-new .gpu/whl/*.whl .gpu/cc3d/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl .gpu/cc3d/*.whl
SECONDS=0
for round in 1 2; do
  for tag in old new; do
    PYTHONPATH=/tmp/site-$tag timeout 150 python3 bench/2026-11-29-cpu-classes-pool/vab.py --tag $tag >> $OUT/vab.csv 2>> $OUT/vab.err
    echo "$tag $round ${SECONDS}s"
  done
done
cat $OUT/vab.csv
