#!/usr/bin/env bash
# ab.sh at 2048^2 alone, g = 4 and 16 (the cells the broadcast is for, and
# the nearest that must not lose), four rounds alternating the binaries
# cell by cell. Usage: ab2.sh OLD NEW OUT
set -u
old=$1; new=$2; out=$3
mkdir -p "$out"; scratch=$(mktemp -d)
for round in 1 2 3 4; do
  for g in 4 16; do
    for tag in old new; do
      bin=$old; [ $tag = new ] && bin=$new
      "$bin" sweep -a cpu-rle --size 2048x2048 --densities 10,30,50,70,90 --granularities $g \
        --task label --reps 15 --out "$scratch/$tag-$round-$g" > /dev/null
      tail -n +2 "$scratch/$tag-$round-$g/sweep.csv" | sed "s/^/$tag,$round,/" >> "$out/ab2.csv"
    done
  done
done
rm -rf "$scratch"
