#!/usr/bin/env bash
# Two H200 (nvidia-h200-x2): ccl.dask.label of a 2048^3 volume in 512^3
# chunks (CuPy, 6-conn., d = 31 %) with the merged labels' numbers from the
# native join ("new": the wheel of 4879e6c) against 9226e8a ("old": the join task's
# searchsorted), one worker and one per GPU, in the order new, old, new;
# bench/2026-11-28-h200x2-kept-features/scripts/c8.sh's
# command. Carry [".gpx2"]: the two ccl wheels and dask's.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $R/gpu.txt
for w in old new; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/$w .gpx2/$w/ccl-*.whl || exit 1; done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/dask .gpx2/dask/*.whl || exit 1
for w in new old new; do for n in 1 2; do
  PYTHONPATH=/tmp/$w:/tmp/dask timeout 70 scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --reps 3 --cupy \
    --scheduler distributed --workers $n --threads-per-worker 8 --libraries ccl-dask --out $R/dask-$w-$n-$SECONDS.csv > $R/dask-$w-$n.log 2>&1
  echo "$w workers=$n rc=$? $(grep 'ccl-dask c=' $R/dask-$w-$n.log)"
done; done 2>&1 | tee $R/dask.txt $OUT/dask.txt
echo "all ${SECONDS}s" | tee -a $R/dask.txt
tar czf $OUT/x2.tgz -C /tmp r
