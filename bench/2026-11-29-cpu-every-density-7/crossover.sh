#!/bin/bash
# The pool (cpu-rle) against one thread (cpu-rle-1t) by image size, each
# sweep in a process of its own, the two variants alternating, ROUNDS
# rounds: run.sh's crossover times both in one process, which on the 2-vCPU
# development machine put identical code 0.88-1.17x apart.
# Usage: crossover.sh CCL ROUNDS > crossover-separate.csv
ccl=$1; rounds=$2
echo "round,variant,side,granularity,density,median_ms"
for round in $(seq 1 $rounds); do
  for side in 256 384 512 768 1024 1448 2048; do
    for variant in cpu-rle cpu-rle-1t; do
      "$ccl" sweep -a $variant --size ${side}x${side} --densities 10,30,50,70,90 --granularities 1,4 \
        -c 8 --task label --reps 9 --out /tmp/xo-$variant >/dev/null 2>&1
      tail -n +2 /tmp/xo-$variant/sweep.csv | awk -F, -v r=$round -v v=$variant -v s=$side '{print r","v","s","$7","$8","$10}'
    done
  done
done
