#!/usr/bin/env bash
# Call c3: the README's batch table for this session's code (6303c2e; the
# commits after it change no code): scripts/peers/time_batch_peers.py
# beside CV-CUDA 0.19. Carry [".whl"]: the wheel (base/) and the CV-CUDA
# pack (cvcuda/, ../shared/tools/cvcuda-sm90).
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/base/*.whl
mkdir -p /tmp/cvc && tar -xJf .whl/cvcuda/cvcuda-sm90.tar.xz -C /tmp/cvc
PYTHONPATH=/tmp/site:/tmp/cvc timeout 150 python3 scripts/peers/time_batch_peers.py --loop-reps 1 --out $OUT/batch-peers.csv > $OUT/batch-peers.txt 2>&1
tail -9 $OUT/batch-peers.txt
