#!/usr/bin/env bash
# Call 2 (carry [".gpu/whl", ".gpu/whl-old"]): ncu's sections of the band
# unions of both wheels at g = 1, 75 % and g = 16, 30 %, 4-conn.
set -u
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-old/*.whl
B=bench/2026-11-29-h200-band-forests
for cell in "75 1" "30 16"; do
  set -- $cell
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 ncu -k regex:flsl_band_unions --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
      python3 $B/one.py --density $1 --granularity $2 > $OUT/ncu-$tag-d$1-g$2.txt 2>&1
    echo "$tag d=$1 g=$2 rc=$?"
    grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Waves Per SM|Block Limit|Registers Per|Memory Throughput|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Shared Memory Configuration Size|Dynamic Shared|Static Shared" $OUT/ncu-$tag-d$1-g$2.txt
  done
done
