#!/usr/bin/env bash
# Call 4: the same code's tables (.gpu/whl): the README's batch table
# (time_batch_peers.py beside CV-CUDA 0.19) and the single 8192^2 image from
# Python beside CV-CUDA and cupyx (time-gpu-peers, 4-conn., 21 densities,
# images from `ccl gen`). Outputs tarred into e4.tgz.
# Carry [".gpu/whl", ".gpu/peers", ".gpu/ccl.xz"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/e4.tgz -C $O .; }
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl.xz'), open('.gpu/ccl', 'wb'))"; chmod +x .gpu/ccl
rm -rf /tmp/site /tmp/cvc; mkdir -p /tmp/cvc
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
tar -xJf .gpu/peers/cvcuda-sm90.tar.xz -C /tmp/cvc
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
PYTHONPATH=/tmp/site:/tmp/cvc timeout 150 python3 scripts/peers/time_batch_peers.py --loop-reps 1 --out $O/batch-peers.csv > $O/batch-peers.txt 2>&1
echo "batch table rc=$? ${SECONDS}s"; tail -9 $O/batch-peers.txt
pack
PYTHONPATH=/tmp/site:/tmp/cvc timeout 150 scripts/peers/time-gpu-peers --ccl .gpu/ccl --reps 5 --connectivity 4 \
  --calls py-ccl-label,cvcuda-label,cupyx-label --out $O/gpu-peers.csv > $O/gpu-peers.txt 2>&1
echo "gpu peers rc=$? ${SECONDS}s"; tail -12 $O/gpu-peers.txt
pack
echo "all ${SECONDS}s"
