#!/usr/bin/env bash
# Call b2: scripts/gpu-check's sanitizers over `ccl verify` of every CUDA
# variant of ours (not npp-uf, whose hazards are NPP's own), fewer images a
# variant to fit the call; then the README's tables: the class maps
# (scripts/peers/time_classes.py, cc3d 4.1.1 carried) and the batch beside
# CV-CUDA (scripts/peers/time-batch-peers). Carry [".whl"]: the wheel,
# cc3d's, ccl.xz and the CV-CUDA pack of ../shared/tools/cvcuda-sm90.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/new/*.whl .whl/peers/*.whl
mkdir -p /tmp/cvc && tar -xJf .whl/cvcuda/cvcuda-sm90.tar.xz -C /tmp/cvc
SECONDS=0
{
# scripts/gpu-check's sanitizer loop over `ccl verify` (every CUDA variant of
# ours but npp-uf), fewer images a variant to fit the call.
variants=$(/tmp/ccl list | awk '$2 == "cuda" && $5 == "available" && $1 != "npp-uf" {printf " -a %s", $1}')
echo "variants:$variants"
for tool in memcheck synccheck racecheck; do
  if [ $tool = racecheck ]; then images="--random-only --cases 3"; else images="--cases 4"; fi
  timeout 110 compute-sanitizer --tool $tool --error-exitcode 99 /tmp/ccl verify $variants $images > /tmp/san-$tool.log 2>&1
  echo "$tool: rc=$? $(grep -c ' ok' /tmp/san-$tool.log) ok lines; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san-$tool.log | tail -1); $(grep -ciE 'FAILED|mismatch' /tmp/san-$tool.log) failed lines; ${SECONDS}s"
done
} 2>&1 | tee $OUT/sanitizers.txt
PYTHONPATH=/tmp/site timeout 120 python3 scripts/peers/time_classes.py --reps 5 --out $OUT/classes.csv > $OUT/classes.txt 2>&1
echo "classes ${SECONDS}s"
PYTHONPATH=/tmp/site:/tmp/cvc timeout 200 python3 scripts/peers/time_batch_peers.py --loop-reps 1 --out $OUT/batch-peers.csv > $OUT/batch-peers.txt 2>&1
echo "all ${SECONDS}s"
