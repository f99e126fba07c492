#!/usr/bin/env bash
# Call 2: the class unions' loads ahead of their merges (7e8e1c7, "p",
# .gpu/whl-p; its gpu-pack archive) against ff66856 ("base", .gpu/whl), and
# the trial "pl1" (.gpu/whl-pl1: also an image's class unions through L1).
# The whole suite; class-runs' check.py (class images and batches against
# the host) and class-volume-runs' check.py large, and both small under
# memcheck; ncu's kernel times of prof.py for the three wheels;
# class-runs' ab.py for base and p, alternating, two rounds. Outputs tarred
# into p2.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl", ".gpu/whl-p", ".gpu/whl-pl1"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/p2.tgz -C $O .; }
for w in whl whl-p whl-pl1; do
  rm -rf /tmp/$w; python3 -m pip install -q --no-index --no-deps --target /tmp/$w .gpu/$w/*.whl
done
P=bench/2026-11-29-h200-class-and-sparse-profile
C=bench/2026-11-28-h200-class-runs; V=bench/2026-11-29-h200-class-volume-runs
SECONDS=0
timeout 230 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
PYTHONPATH=/tmp/whl-p timeout 60 python3 $C/check.py > $O/class-check.txt 2>&1
echo "class check rc=$? ${SECONDS}s"; tail -1 $O/class-check.txt
PYTHONPATH=/tmp/whl-p timeout 90 python3 $V/check.py --size large > $O/volume-check.txt 2>&1
echo "volume check rc=$? ${SECONDS}s"; grep -c "^ok" $O/volume-check.txt; grep -v "^ok" $O/volume-check.txt | tail -2
PYTHONPATH=/tmp/whl-p timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick > $O/class-memcheck.txt 2>&1
echo "class memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY| ok" $O/class-memcheck.txt | tail -2
PYTHONPATH=/tmp/whl-p timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $V/check.py --size small > $O/volume-memcheck.txt 2>&1
echo "volume memcheck rc=$? ${SECONDS}s"; grep -c "^ok" $O/volume-memcheck.txt; grep -E "SUMMARY" $O/volume-memcheck.txt | tail -1
pack
for w in whl whl-p whl-pl1; do
  PYTHONPATH=/tmp/$w timeout 60 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    python3 $P/prof.py > $O/kernels-$w.txt 2>&1
  echo "ncu $w rc=$? ${SECONDS}s"; python3 $P/calls.py $O/kernels-$w.txt | grep -E "^[a-z]|class_unions|flsl_unions"
done
pack
for round in 1 2; do
  for w in whl whl-p; do
    PYTHONPATH=/tmp/$w timeout 60 python3 $C/ab.py $w-$round >> $O/class-ab.csv 2>&1; echo "ab $w $round rc=$? ${SECONDS}s"
  done
done
pack; echo "all ${SECONDS}s"
