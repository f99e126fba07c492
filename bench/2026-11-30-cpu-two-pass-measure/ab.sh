#!/bin/bash
# usage: ab.sh variant task size rounds gran
v=$1; task=$2; size=$3; rounds=$4; g=${5:-1}
for round in $(seq $rounds); do for b in head new; do /tmp/ccl-$b sweep -a $v --size $size --densities 10,30,50,70,90 --granularities $g --task $task --reps 9 --out /tmp/ab-$b-$round >/dev/null 2>&1; done; done
python3 - $rounds <<'PY'
import csv,sys,statistics
R=int(sys.argv[1]); res={}
for r in range(1,R+1):
  for b in ('head','new'):
    for x in csv.DictReader(open(f'/tmp/ab-{b}-{r}/sweep.csv')):
      res.setdefault((x['task'],int(x['granularity']),int(x['connectivity']),int(x['density'])),{}).setdefault(b,[]).append(float(x['median_ms']))
for k in sorted(res):
  h=res[k]['head']; n=res[k]['new']
  print(k, ' '.join(f"{a:.2f}/{c:.2f}" for a,c in zip(h,n)), ' ratio %.2f'%statistics.median([c/a for a,c in zip(h,n)]))
PY
