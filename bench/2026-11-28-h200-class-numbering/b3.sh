#!/usr/bin/env bash
# Call b3: bands of 8 rows against 16 (BAND_ROWS in ccl-cuda-flsl's flsl.rs,
# which the binary batches, the volumes and now the class batches take):
# ncu of the band kernels and of the whole call for the two wheels, on
# ../2026-11-28-h200-staged-runs/pb.py's inputs. Carry [".whl"]: the wheels
# "new" (16 rows) and "band8".
set -u
P=bench/2026-11-28-h200-staged-runs/pb.py
C=bench/2026-11-28-h200-class-runs
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for w in new band8; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whl/$w/*.whl; done
SECONDS=0
sum() {
  grep -E '"gpu__time_duration.sum"' | awk -F'","' '{split($5, n, "("); v = $NF; gsub(/[",]/, "", v); t[n[1]] += v; s += v}
    END {for (k in t) if (k ~ /band|unions/) printf "  %-30s %8.1f us\n", k, t[k] / 1000; printf "  %-30s %8.1f us\n", "all kernels", s / 1000}'
}
for m in "batch 1 60 4" "batch 1 75 4" "batch 4 75 4" "batch 16 10 4" "vol-flsl-cd 1 30 6"; do
  for w in new band8; do
    echo "== $m $w"
    PYTHONPATH=/tmp/site-$w timeout 40 ncu --profile-from-start off --csv --print-units base --metrics gpu__time_duration.sum python3 $P $m 2>/dev/null | sum
  done
done 2>&1 | tee $OUT/ncu-bands.txt
echo "bands ${SECONDS}s"
echo "== class batch (ab.py rows of the batch)" | tee $OUT/ab.txt
for w in new band8; do PYTHONPATH=/tmp/site-$w timeout 60 python3 $C/ab.py $w 2>&1 | grep 256x | tee -a $OUT/ab.txt; done
echo "all ${SECONDS}s"
