#!/usr/bin/env bash
# Call: where the batch call's time goes outside its kernels. ncu at the
# timed calls' clocks and without its cache flushes (the kernels' sum as
# the timed calls run them), and, where the machine has it, nsys's trace of
# five calls per cell. Carry [".gpu/whl"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
here=bench/2026-11-29-h200-batch-gaps
cells=75:1:4,60:1:8,30:4:4,10:16:4
PYTHONPATH=/tmp/site timeout 120 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
  python3 $here/gaps.py --cells $cells --reps 1 > $OUT/ncu-warm.txt 2>&1
echo "ncu rc=$?"
command -v nsys || ls /usr/local/cuda/bin | grep -i nsys || ls -d /opt/nvidia/nsight-systems* 2>/dev/null
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
if [ -n "$NSYS" ]; then
  PYTHONPATH=/tmp/site timeout 120 $NSYS profile -t cuda -o /tmp/trace python3 $here/gaps.py --cells $cells --reps 5 > $OUT/nsys.txt 2>&1
  echo "nsys rc=$?"
  $NSYS stats --report cuda_gpu_trace --format csv /tmp/trace.nsys-rep > $OUT/gpu-trace.csv 2>>$OUT/nsys.txt
  $NSYS stats --report cuda_api_trace --format csv /tmp/trace.nsys-rep > $OUT/api-trace.csv 2>>$OUT/nsys.txt
  ls -la $OUT
fi
