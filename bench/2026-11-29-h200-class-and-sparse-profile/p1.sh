#!/usr/bin/env bash
# Call 1: ncu's kernel times of prof.py's calls (the code of ff66856,
# .gpu/whl), at the timed calls' clocks and warm caches; then ncu's
# sections of the class map's unions and numbering at 90 %. Carry [".gpu/whl"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
P=bench/2026-11-29-h200-class-and-sparse-profile
SECONDS=0
PYTHONPATH=/tmp/site timeout 150 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
  python3 $P/prof.py > $OUT/kernels.txt 2>&1
echo "ncu rc=$? ${SECONDS}s"
python3 $P/calls.py $OUT/kernels.txt > $OUT/kernels.md 2>&1; cat $OUT/kernels.md
PYTHONPATH=/tmp/site timeout 150 ncu -k regex:"flsl_class_unions|flsl_number_class_runs|flsl_unions|flsl_number_runs" --launch-skip 0 --launch-count 8 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
  python3 $P/prof.py > $OUT/sections.txt 2>&1
echo "sections rc=$? ${SECONDS}s"
grep -E "^  [a-z_0-9]+|Duration|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp|L1/TEX Hit|L2 Hit|Memory Throughput|Stall" $OUT/sections.txt | head -80
