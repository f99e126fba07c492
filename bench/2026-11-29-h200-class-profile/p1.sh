#!/usr/bin/env bash
# Call p1: what bounds the class map's unions and run numbering (8192^2,
# 4 classes, g = 1, 30 %, 4-conn.) and a batch's band unions (256 masks of
# 512^2, g = 1, 75 %): ncu's full set on those kernels alone. Carry
# [".whl"]: the wheel of 1940884 (base/).
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/base/*.whl
export PYTHONPATH=/tmp/site
M="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats"
timeout 150 ncu --profile-from-start off $M --kernel-name regex:"flsl_class_unions|flsl_number_class_runs|flsl_class_runs" \
  python3 bench/2026-11-28-h200-class-runs/pc.py 1 30 4 > $OUT/classes-1-30-4.txt 2>&1
echo "classes rc=$?"
timeout 150 ncu --profile-from-start off $M --kernel-name regex:"flsl_band_unions|flsl_number_runs" \
  python3 bench/2026-11-29-h200-flat-bands/bm.py ncu batch-1-75-4 > $OUT/batch-1-75-4.txt 2>&1
echo "batch rc=$?"
grep -E "^  [a-z_0-9]+|Duration|Memory Throughput|DRAM Throughput|Compute \(SM\)|L1/TEX Hit|L2 Hit|Issued Warp|No Eligible|Achieved Occupancy|Warp Cycles Per Issued|Stall" $OUT/*.txt | head -80
