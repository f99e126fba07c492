#!/usr/bin/env bash
# call3.sh's batch table twice more in one call (same wheel .gpu/whl-new,
# same peers), to see how far its g = 16 cells move between runs. Outputs
# in c4.tgz. Carry [".gpu/whl-new", ".gpu/peers"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c4.tgz -C $O .; }
rm -rf /tmp/site /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-new/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
SECONDS=0
for run in 1 2; do
  PYTHONPATH=/tmp/site:/tmp/cvc timeout 200 python3 scripts/peers/time_batch_peers.py --reps 15 --loop-reps 1 \
    --out $O/batch-peers-$run.csv > $O/batch-peers-$run.txt 2>&1
  echo "batch table $run rc=$? ${SECONDS}s"; tail -7 $O/batch-peers-$run.txt
  pack
done
