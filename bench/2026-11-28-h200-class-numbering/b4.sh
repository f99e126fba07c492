#!/usr/bin/env bash
# Call b4: memcheck of `ccl verify` over every CUDA variant of ours (b2's
# timed out at 4 images a variant), with 2 images a variant; and ncu of a
# binary batch beside one image at low density, every kernel, for the
# batch's share of one image's throughput. Carry [".whl"] (wheel, ccl.xz).
set -u
P=bench/2026-11-28-h200-staged-runs/pb.py
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whl/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/new/*.whl
SECONDS=0
for m in "batch 16 10 4" "one 16 10 4" "batch 4 10 4" "one 4 10 4"; do
  echo "== $m"
  PYTHONPATH=/tmp/site timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $P $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); printf "%-34s %9.1f us\n", n[1], v / 1000; s += v} END {printf "%-34s %9.1f us\n", "total", s / 1000}'
  PYTHONPATH=/tmp/site timeout 40 python3 $P $m time
done 2>&1 | tee $OUT/ncu-low.txt
echo "ncu ${SECONDS}s"
variants=$(/tmp/ccl list | awk '$2 == "cuda" && $5 == "available" && $1 != "npp-uf" {printf " -a %s", $1}')
timeout 400 compute-sanitizer --tool memcheck --error-exitcode 99 /tmp/ccl verify $variants --cases 2 > $OUT/memcheck.log 2>&1
echo "memcheck: rc=$? $(grep -c ' ok' $OUT/memcheck.log) ok lines; $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1); ${SECONDS}s" | tee $OUT/memcheck.txt
