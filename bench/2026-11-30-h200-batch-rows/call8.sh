#!/usr/bin/env bash
# HEAD's kernels but the group root count a warp per group, walking the
# words that hold runs sixteen ahead (FLSL_COUNT_AHEAD 16): ncu's warm times
# and instructions of profile.py's 30 %, g = 16, 4-conn. cell and of
# dense.py's batches for both wheels (HEAD's kernels: .gpu/whl-new2);
# profile.py A/B, three rounds of alternating processes; sanity.py.
# Outputs in c8.tgz. Carry [".gpu/whl-rows", ".gpu/whl-new2"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c8.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-new2/*.whl
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none -k regex:"count" \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/profile.py --cells 30:16:4,10:16:8 --reps 1 > $O/ncu-$tag.txt 2>&1
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none -k regex:"count" \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/dense.py > $O/ncu-dense-$tag.txt 2>&1
  echo "ncu $tag ${SECONDS}s"
done
pack
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
done
PYTHONPATH=/tmp/site timeout 60 python3 $here/sanity.py > $O/sanity.txt 2>&1
echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
pack
