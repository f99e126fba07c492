#!/usr/bin/env bash
# cpu-rle and cpu-rle-1t analyses of the code before (OLD) and after (NEW)
# at SIZE, g = GRANULARITIES, 10-90 %, 4- and 8-connectivity: the two
# binaries alternating, ROUNDS rounds; one CSV line per cell and round.
#   ab.sh OLD NEW ROUNDS [SIZE] [GRANULARITIES] [TASK] > ab.csv
set -u
old=$1; new=$2; rounds=$3; size=${4:-4096x4096}; gs=${5:-1}; task=${6:-analyze}
echo "round,binary,variant,connectivity,granularity,density,median_ms"
for r in $(seq "$rounds"); do
  for tag in old new; do
    bin=$old; [ $tag = new ] && bin=$new
    for c in 4 8; do
      out=$(mktemp -d)
      "$bin" sweep -a cpu-rle -a cpu-rle-1t --size "$size" --densities 10,30,50,70,90 --granularities "$gs" -c $c \
        --task "$task" --reps 7 --out "$out" > /dev/null 2>&1
      tail -n +2 "$out/sweep.csv" | awk -F, -v r="$r" -v t="$tag" '{print r "," t "," $1 "," $3 "," $7 "," $8 "," $10}'
      rm -rf "$out"
    done
  done
done
