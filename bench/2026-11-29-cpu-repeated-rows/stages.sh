#!/bin/bash
# stages.sh OLD NEW ROUNDS SIZE VARIANT: write-stage medians, alternating.
old=$1; new=$2; rounds=$3; size=$4; variant=$5
echo "binary,round,connectivity,granularity,density,bands,join,write"
for r in $(seq 1 $rounds); do
  for b in old new; do
    bin=$old; [ $b = new ] && bin=$new
    for c in 4 8; do for g in 1 4 16; do for d in 10 30 50 70 90; do
      CCL_STAGES=1 $bin sweep -a $variant --size $size --densities $d --granularities $g -c $c --task label --reps 15 --out /tmp/ab/t-$b 2>&1 >/dev/null | grep STAGES |
        awk -v b=$b -v r=$r -v c=$c -v g=$g -v d=$d '{print $3, $5, $7}' | sort -n -k3 | awk -v b=$b -v r=$r -v c=$c -v g=$g -v d=$d '{a[NR]=$0} END {split(a[int((NR+1)/2)],m," "); print b","r","c","g","d","m[1]","m[2]","m[3]}'
    done; done; done
  done
done
