#!/usr/bin/env bash
rm -rf /tmp/site-base; python3 -m pip install -q --no-index --no-deps --target /tmp/site-base .whlt/d/*.whl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/base-so.xz'), open('/tmp/site-base/ccl/_ccl.abi3.so', 'wb'))"
for m in "batch 1 75 4" "batch 16 10 4"; do
  echo "=== $m"
  PYTHONPATH=/tmp/site-base timeout 150 ncu --profile-from-start off --set full -k regex:"flsl_band_unions|flsl_count_roots|flsl_runs_c4" --page details python3 .whlt/pb.py $m 2>&1 | grep -vE "^==PROF==|^\s*$" | grep -E "flsl_|Duration|Throughput|Warp Cycles|Achieved Occupancy|Theoretical Occupancy|Registers|Stall|L1/TEX Hit|L2 Hit|Issued Ipc|Eligible|No Eligible|Active Warps|Mem Busy|Max Bandwidth|Block Limit|est. speedup|Est. Speedup|OPT|INF|long scoreboard|Long Scoreboard|barrier|Barrier|membar|MIO|LG Throttle|Branch" | head -150
done > $OUT/ncu-full.txt 2>&1
wc -l $OUT/ncu-full.txt
