#!/bin/bash
# pairs.sh OLD NEW ROUNDS VARIANT: as bands.sh, but the two binaries
# alternate cell by cell (old, new, old, new, ... within a cell), so that a
# pair is timed seconds apart; this VM has slow spells that last longer.
old=$1; new=$2; rounds=$3; variant=$4
echo "binary,round,connectivity,density,bands,join,write,call"
for c in 4 8; do for d in 10 30 50 70 90; do
  for r in $(seq 1 $rounds); do
    for b in old new; do
      bin=$old; [ $b = new ] && bin=$new
      CCL_STAGES=1 $bin sweep -a $variant --size 2048x2048 --densities $d --granularities 1 -c $c --task label --reps 21 --out /tmp/bb-$b 2>&1 >/dev/null | grep "^STAGES" |
        awk '{print $3, $5, $7}' | sort -n | awk -v b=$b -v r=$r -v c=$c -v d=$d '{a[NR]=$0} END {split(a[int((NR+1)/2)],m," "); printf "%s,%s,%s,%s,%s,%s,%s,", b, r, c, d, m[1], m[2], m[3]}'
      tail -n +2 /tmp/bb-$b/sweep.csv | cut -d, -f10
    done
  done
done; done
