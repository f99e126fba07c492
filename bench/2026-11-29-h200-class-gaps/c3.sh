#!/usr/bin/env bash
# Call 3: the README's batch table at this code (scripts/peers/time_batch_peers.py
# beside CV-CUDA 0.19, ../shared/tools/cvcuda-sm90's pack). Carry [".gpu/whl", ".whl/cvcuda"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
mkdir -p /tmp/cvc && tar -xJf .whl/cvcuda/cvcuda-sm90.tar.xz -C /tmp/cvc
SECONDS=0
PYTHONPATH=/tmp/site:/tmp/cvc timeout 400 python3 scripts/peers/time_batch_peers.py --loop-reps 1 --out $OUT/batch-peers.csv > $OUT/batch-peers.txt 2>&1
echo "batch rc=$? ${SECONDS}s"; tail -5 $OUT/batch-peers.txt
