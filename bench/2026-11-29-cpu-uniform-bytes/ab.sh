#!/usr/bin/env bash
# A/B of the label write's broadcast of uniform bytes in rows of long runs:
# `ccl sweep` of cpu-rle at 2048^2 and 4096^2, densities 10-90 %, g = 1 / 4 /
# 16, both connectivities, labels, for the binary before ("old") and after
# ("new"), alternating, two rounds. Usage: ab.sh OLD NEW OUT
set -u
old=$1; new=$2; out=$3
mkdir -p "$out"; scratch=$(mktemp -d)
for round in 1 2; do
  for tag in old new; do
    bin=$old; [ $tag = new ] && bin=$new
    for side in 2048 4096; do
      "$bin" sweep -a cpu-rle --size ${side}x${side} --densities 10,30,50,70,90 --granularities 1,4,16 \
        --task label --reps 9 --out "$scratch/$tag-$round-$side" > /dev/null
      tail -n +2 "$scratch/$tag-$round-$side/sweep.csv" | sed "s/^/$tag,$round,/" >> "$out/ab.csv"
    done
  done
done
rm -rf "$scratch"
