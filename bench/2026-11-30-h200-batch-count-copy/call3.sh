#!/usr/bin/env bash
# The README's batch table on ac1fa57's wheel (.gpu/whl-new: a batch without
# the count's early copy): time_batch_peers.py beside CV-CUDA (cvcuda-sm90's
# pack), 15 calls a median, the loops once. Outputs in c3.tgz.
# Carry [".gpu/whl-new", ".gpu/peers"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c3.tgz -C $O .; }
rm -rf /tmp/site /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-new/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
PYTHONPATH=/tmp/site:/tmp/cvc timeout 420 python3 scripts/peers/time_batch_peers.py --reps 15 --loop-reps 1 \
  --out $O/batch-peers.csv > $O/batch-peers.txt 2>&1
echo "batch table rc=$? ${SECONDS}s"; tail -9 $O/batch-peers.txt
pack
