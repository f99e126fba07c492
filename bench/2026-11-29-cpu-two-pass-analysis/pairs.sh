#!/bin/bash
# pairs.sh OLD NEW ROUNDS VARIANT SIZE: the analysis call's median per cell,
# g = 1, the two binaries alternating cell by cell (ROUNDS pairs a cell).
old=$1; new=$2; rounds=$3; variant=$4; size=$5
echo "binary,round,connectivity,density,call"
for c in 4 8; do for d in 10 30 50 70 90; do
  for r in $(seq 1 $rounds); do
    for b in old new; do
      bin=$old; [ $b = new ] && bin=$new
      $bin sweep -a $variant --size ${size}x${size} --densities $d --granularities 1 -c $c --task analyze --reps 21 --out /tmp/ba-$b >/dev/null 2>&1
      echo "$b,$r,$c,$d,$(tail -n +2 /tmp/ba-$b/sweep.csv | cut -d, -f10)"
    done
  done
done; done
