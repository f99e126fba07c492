#!/usr/bin/env bash
# Call 2: the class unions' loads two runs ahead (this code, "a", .gpu/whl-a;
# its gpu-pack archive) beside w1's "n" (.gpu/whl-n: an image's class unions
# through L1 alone) and 7065000 ("h", .gpu/whl-h). The whole suite;
# class-runs' check.py and class-volume-runs' check.py --size large (the
# unions of images, batches, bands and volumes against the host), both small
# under memcheck; ncu's kernel times of class-and-sparse-profile's prof.py
# for the three wheels; two rounds of class-region-maps' regions.py (images)
# and class-runs' ab.py (maps of a class per cell) for n and a, alternating.
# Outputs tarred into c1.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl-h", ".gpu/whl-n", ".gpu/whl-a"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c1.tgz -C $O .; }
for w in whl-h whl-n whl-a; do
  rm -rf /tmp/$w; python3 -m pip install -q --no-index --no-deps --target /tmp/$w .gpu/$w/*.whl
done
C=bench/2026-11-28-h200-class-runs; V=bench/2026-11-29-h200-class-volume-runs
R=bench/2026-11-29-h200-class-region-maps; P=bench/2026-11-29-h200-class-and-sparse-profile
SECONDS=0
timeout 200 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
PYTHONPATH=/tmp/whl-a timeout 60 python3 $C/check.py > $O/class-check.txt 2>&1
echo "class check rc=$? ${SECONDS}s"; tail -1 $O/class-check.txt
PYTHONPATH=/tmp/whl-a timeout 90 python3 $V/check.py --size large > $O/volume-check.txt 2>&1
echo "volume check rc=$? ${SECONDS}s"; grep -c "^ok" $O/volume-check.txt; grep -v "^ok" $O/volume-check.txt | tail -2
PYTHONPATH=/tmp/whl-a timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick > $O/class-memcheck.txt 2>&1
echo "class memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY| ok" $O/class-memcheck.txt | tail -2
PYTHONPATH=/tmp/whl-a timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $V/check.py --size small > $O/volume-memcheck.txt 2>&1
echo "volume memcheck rc=$? ${SECONDS}s"; grep -c "^ok" $O/volume-memcheck.txt; grep -E "SUMMARY" $O/volume-memcheck.txt | tail -1
pack
for w in whl-h whl-n whl-a; do
  PYTHONPATH=/tmp/$w timeout 40 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    python3 $P/prof.py > $O/kernels-$w.txt 2>&1
  echo "ncu $w rc=$? ${SECONDS}s"; python3 $P/calls.py $O/kernels-$w.txt | grep -E "^[a-z]|class_unions|flsl_unions"
done
pack
for round in 1 2; do
  for w in whl-n whl-a; do
    tag=${w#whl-}
    PYTHONPATH=/tmp/$w timeout 50 python3 $R/regions.py --images-only --reps 9 --tag $tag, >> $O/regions.csv 2>&1
    PYTHONPATH=/tmp/$w timeout 50 python3 $C/ab.py $tag-$round >> $O/class-ab.csv 2>&1
    echo "round $round $tag ${SECONDS}s"
  done
  pack
done
