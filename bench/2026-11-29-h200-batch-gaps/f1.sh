#!/usr/bin/env bash
# Call: the batch table's g = 1 cells at 60, 75 and 90 % with today's code
# (the wheel of 731320a and after: keep-largest keys, the trimmed wrapper,
# launch divisors), beside CV-CUDA, three rounds of time_batch_peers.py
# (--reps 15). Carry [".gpu/whl", ".gpu/peers"].
set -u
rm -rf /tmp/site /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
for round in 1 2 3; do
  PYTHONPATH=/tmp/site:/tmp/cvc timeout 150 python3 scripts/peers/time_batch_peers.py --densities 60,75,90 \
    --granularities 1 --reps 15 --loop-reps 1 --out $OUT/batch-peers-$round.csv > $OUT/batch-peers-$round.txt 2>&1
  echo "round $round rc=$? ${SECONDS}s"; grep "c=4" $OUT/batch-peers-$round.txt
done
