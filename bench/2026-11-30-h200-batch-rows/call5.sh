#!/usr/bin/env bash
# The group root count a lane per slot of the words that hold runs, four
# words loaded ahead (FLSL_COUNT_AHEAD):
# ncu's warm times and instructions of the count kernels where groups hold
# many runs (dense.py: 256 masks of 512^2 at g = 1, 30 and 60 %, a 512^3
# volume at 30 %, 6-conn.) for the wheel of HEAD's kernels (.gpu/whl-new2)
# and this code (.gpu/whl-rows), and of profile.py's 30 %, g = 16 cell;
# profile.py A/B, three rounds of alternating processes; sanity.py.
# Outputs in c5.tgz. Carry [".gpu/whl-rows", ".gpu/whl-new2"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c5.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-new2/*.whl
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 90 ncu --clock-control none --cache-control none -k regex:"count|flsl_runs|label_pixels" \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/dense.py > $O/ncu-dense-$tag.txt 2>&1
  echo "ncu dense $tag rc=$? ${SECONDS}s"
done
PYTHONPATH=/tmp/site timeout 60 ncu --clock-control none --cache-control none \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
  python3 $here/profile.py --cells 30:16:4 --reps 1 > $O/ncu-new.txt 2>&1
echo "ncu new rc=$? ${SECONDS}s"
pack
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
done
PYTHONPATH=/tmp/site timeout 120 python3 $here/sanity.py > $O/sanity.txt 2>&1
echo "sanity rc=$? ${SECONDS}s"; tail -3 $O/sanity.txt
pack
