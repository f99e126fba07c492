#!/usr/bin/env bash
# cpu-rle of the code before (OLD: 1 Mpx bar) and after (NEW: 1.5 Mpx) at
# 1024^2, 8-connectivity labels, g = 1 and 4, 10-90 %: the two binaries
# alternating, ROUNDS rounds; one CSV line per cell and round.
#   ab.sh OLD NEW ROUNDS > ab.csv
set -u
old=$1; new=$2; rounds=$3
echo "round,binary,granularity,density,median_ms"
for r in $(seq "$rounds"); do
  for tag in old new; do
    bin=$old; [ $tag = new ] && bin=$new
    out=$(mktemp -d)
    "$bin" sweep -a cpu-rle --size 1024x1024 --densities 10,30,50,70,90 --granularities 1,4 -c 8 \
      --task label --reps 15 --out "$out" > /dev/null 2>&1
    tail -n +2 "$out/sweep.csv" | awk -F, -v r="$r" -v t="$tag" '{print r "," t "," $7 "," $8 "," $10}'
    rm -rf "$out"
  done
done
