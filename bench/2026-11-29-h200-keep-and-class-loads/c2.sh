#!/usr/bin/env bash
# Call 3: the range test's loads four strides at once where one image's
# largest key alone is wanted (wheel "f", .gpu/whl-f), and with it a class
# image's runs pointed at the root their merges reached (wheel "x",
# .gpu/whl-x; its gpu-pack archive), beside 7065000 ("h", .gpu/whl-h). The
# whole suite on x; class-runs' check.py and keep-largest-keys' check.py
# --size large on x, both small under memcheck; ncu's kernel times of
# class-and-sparse-profile's prof.py for f and x; two rounds of
# keep-largest-keys' ab.py (h, x) and class-region-maps' regions.py (f, x),
# alternating. Outputs tarred into c2.tgz. Carry [".gpu/run-tests",
# ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz", ".gpu/whl-h", ".gpu/whl-f",
# ".gpu/whl-x"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c2.tgz -C $O .; }
for w in whl-h whl-f whl-x; do
  rm -rf /tmp/$w; python3 -m pip install -q --no-index --no-deps --target /tmp/$w .gpu/$w/*.whl
done
C=bench/2026-11-28-h200-class-runs; K=bench/2026-11-29-h200-keep-largest-keys
R=bench/2026-11-29-h200-class-region-maps; P=bench/2026-11-29-h200-class-and-sparse-profile
SECONDS=0
timeout 200 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
PYTHONPATH=/tmp/whl-x timeout 40 python3 $C/check.py > $O/class-check.txt 2>&1
echo "class check rc=$? ${SECONDS}s"; tail -1 $O/class-check.txt
PYTHONPATH=/tmp/whl-x timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick > $O/class-memcheck.txt 2>&1
echo "class memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY| ok" $O/class-memcheck.txt | tail -2
PYTHONPATH=/tmp/whl-x timeout 40 python3 $K/check.py --size large > $O/keep-large.txt 2>&1
echo "keep large rc=$? ${SECONDS}s"; tail -1 $O/keep-large.txt
PYTHONPATH=/tmp/whl-x timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $K/check.py > $O/keep-memcheck.txt 2>&1
echo "keep memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok " $O/keep-memcheck.txt | tail -2
pack
for w in whl-f whl-x; do
  PYTHONPATH=/tmp/$w timeout 40 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    python3 $P/prof.py > $O/kernels-$w.txt 2>&1
  echo "ncu $w rc=$? ${SECONDS}s"; python3 $P/calls.py $O/kernels-$w.txt | grep -E "^classes|class_unions|number_class"
done
pack
for round in 1 2; do
  for w in whl-h whl-x; do
    PYTHONPATH=/tmp/$w timeout 45 python3 $K/ab.py --tag ${w#whl-} --densities 10,30,60,90 --granularities 1,4 >> $O/keep-ab.csv 2>&1
  done
  for w in whl-f whl-x; do
    PYTHONPATH=/tmp/$w timeout 40 python3 $R/regions.py --images-only --reps 9 --tag ${w#whl-}, >> $O/regions.csv 2>&1
  done
  echo "round $round ${SECONDS}s"
  pack
done
