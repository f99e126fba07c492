#!/usr/bin/env bash
# Call s4: the README's batch table for this folder's code (wheel flag2):
# scripts/peers/time_batch_peers.py beside CV-CUDA 0.19. Carry [".whl"]:
# the wheel (flag2/) and the CV-CUDA pack (cvcuda/, ../shared/tools/cvcuda-sm90).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/flag2/*.whl
mkdir -p /tmp/cvc && tar -xJf .whl/cvcuda/cvcuda-sm90.tar.xz -C /tmp/cvc
PYTHONPATH=/tmp/site:/tmp/cvc timeout 200 python3 scripts/peers/time_batch_peers.py --loop-reps 1 --out $OUT/batch-peers.csv > $OUT/batch-peers.txt 2>&1
tail -9 $OUT/batch-peers.txt
