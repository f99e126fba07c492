#!/usr/bin/env bash
out=$OUT/trace16.txt
for side in 2048 4096; do for c in 4 8; do for g in 1 4; do for d in 30 50 70 90; do
  for mode in LABEL REUSE; do
    for cfg in "BPT=1" "BPT=2" "BPT=4" "ONE=1"; do
      echo "### side=$side c=$c g=$g d=$d mode=$mode cfg=$cfg" >> $out
      env $mode=1 TRACE=1 $cfg .gpx/sa $side $c $g $d 11 >> $out 2>&1
    done
  done
done; done; done; done
tail -3 $out; wc -l $out
