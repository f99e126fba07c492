#!/bin/bash
# The runs of this folder: cpu-rle against cpu-rle-1t by image size, then
# against OpenCV (every thread) and cc3d (one thread) density by density.
# Usage: run.sh CCL OUT [OPENCV_THREADS]
#   on the 2-core development machine: run.sh target/release/ccl dev-2core
#   on the GPU machine (no network; cc3d from a carried wheel, numpy and
#   OpenCV installed): CCL_PEERS_PYTHON=python3 run.sh .gpu/ccl h100-host-16core 16
set -u
ccl=$1; out=$2; opencv_threads=${3:-}
densities=10,30,50,70,90
scratch=$(mktemp -d)
mkdir -p "$out"
for side in 256 384 512 768 1024 1448 2048; do
  "$ccl" sweep -a cpu-rle -a cpu-rle-1t --size ${side}x${side} --densities $densities \
    --granularities 1,4 -c 8 --task label --reps 9 --out "$scratch/x-$side" >/dev/null
done
for f in "$scratch"/x-*/sweep.csv; do tail -n +2 "$f"; done > "$out/crossover.csv"
for side in 2048 4096; do
  "$ccl" sweep -a cpu-rle --size ${side}x${side} --densities $densities --task both \
    --reps 7 --out "$scratch/ccl-$side" >/dev/null
  cp "$scratch/ccl-$side/sweep.csv" "$out/ccl-$side.csv"
  scripts/peers/time-peers --ccl "$ccl" --size ${side}x${side} --densities $densities \
    --task both --reps 7 ${opencv_threads:+--opencv-threads $opencv_threads} \
    --out "$out/peers-$side.csv"
done
mv "$out/peers-4096.csv.versions.txt" "$out/peers.versions.txt"
rm -f "$out/peers-2048.csv.versions.txt"
rm -rf "$scratch"
