#!/usr/bin/env bash
# Why a batch's per-row kernels take longer than one image's: ncu's
# speed-of-light, warp-state, occupancy and instruction sections of the run,
# root-count, numbering and pixel kernels, one call of each at 30 %, g = 16,
# 4-conn. (profile.py --reps 1), wheel of 5b5f3ee's kernels (.gpu/whl-new2,
# HEAD's CUDA code). Outputs in c1.tgz. Carry [".gpu/whl-new2"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
here=bench/2026-11-30-h200-batch-rows
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-new2/*.whl
export PYTHONPATH=/tmp/site
SECONDS=0
timeout 400 ncu --section SpeedOfLight --section WarpStateStats --section Occupancy \
  --section InstructionStats --section LaunchStats --section MemoryWorkloadAnalysis \
  -k regex:"flsl_runs|flsl_count|flsl_number|flsl_label_pixels|flsl_band|flsl_unions" \
  python3 $here/profile.py --cells 30:16:4 --reps 1 > $O/ncu.txt 2>&1
echo "ncu rc=$? ${SECONDS}s"
tar -czf $OUT/c1.tgz -C $O .
