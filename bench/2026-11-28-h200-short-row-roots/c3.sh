#!/usr/bin/env bash
# Call 3: three versions of the band unions against a1f12fd ("old"), in one
# call: A, a chunk's runs united at once in shared memory (band-forest-A.patch); B,
# A storing each root in the last pass (band-forest-B.patch); C, the chunk's rows
# united step by step by the whole block, the links loaded into shared
# memory first (band-forest-C.patch). Checks of B and C, then ncu per kernel.
# From the repository root, carry [".whlt"].
set -u
B=bench/2026-11-28-h200-short-row-roots
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
for w in old A B C; do rm -rf /tmp/site-$w; python3 -m pip install -q --no-index --no-deps --target /tmp/site-$w .whlt/$w/*.whl; done
{ for w in B C; do echo "== chkbatch $w"; PYTHONPATH=/tmp/site-$w timeout 60 python3 $B/chkbatch.py 2>&1 | tail -1; done
  echo "== chk2 C"; PYTHONPATH=/tmp/site-C timeout 100 python3 bench/2026-11-28-h200-batch-groups/chk2.py 2>&1 | tail -1
  echo "== racecheck chkbatch C"; PYTHONPATH=/tmp/site-C timeout 100 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $B/chkbatch.py 2>&1 | tail -2
} 2>&1 | tee $OUT/checks.txt
for m in "batch 1 60 4" "batch 1 75 4" "batch 4 75 4" "batch 16 10 4" "vol-flsl-cd 1 30 6"; do for w in old A B C; do
  PYTHONPATH=/tmp/site-$w timeout 40 ncu --profile-from-start off --csv --metrics gpu__time_duration.sum python3 bench/2026-11-28-h200-staged-runs/pb.py $m 2>/dev/null \
    | grep -E '"gpu__time_duration.sum"' | awk -F'","' -v tag="$w $m" '{if ($5 ~ /band_unions/) u += $NF; s += $NF} END {printf "%-28s band_unions %7.1f  total %7.1f us\n", tag, u, s}'
done; done 2>&1 | tee $OUT/ncu.txt
for w in A C; do
  PYTHONPATH=/tmp/site-$w timeout 60 ncu --profile-from-start off -k regex:band_unions --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats python3 bench/2026-11-28-h200-staged-runs/pb.py batch 1 60 4 > $OUT/ncu-sections-$w.txt 2>&1
done
