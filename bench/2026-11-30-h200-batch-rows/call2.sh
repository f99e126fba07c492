#!/usr/bin/env bash
# The first rows by divisors, the group root count and the short-row pixel
# pass's one division (working tree after 8b1 of this folder): profile.py
# A/B against the wheel of HEAD's kernels (.gpu/whl-new2), three rounds of
# alternating processes; ncu's warm kernel times and instructions of one
# call of each at 30 %, g = 16, 4-conn.; sanity.py (batches, class-map
# batches, volumes against the CPU); the Rust suite on gpu-pack's archive.
# Outputs in c2.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl-rows", ".gpu/whl-new2"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c2.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-new2/*.whl
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
done
cat $O/ab.csv
pack
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/profile.py --cells 30:16:4 --reps 1 > $O/ncu-$tag.txt 2>&1
  echo "ncu $tag rc=$? ${SECONDS}s"
done
PYTHONPATH=/tmp/site timeout 120 python3 $here/sanity.py > $O/sanity.txt 2>&1
echo "sanity rc=$? ${SECONDS}s"; tail -3 $O/sanity.txt
pack
timeout 260 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
