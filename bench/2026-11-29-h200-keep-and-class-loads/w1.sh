#!/usr/bin/env bash
# Call 1: vote_areas' hot rank from each warp's first round, the kept-largest
# test in one header helper, an image's class unions through L1 (this code,
# "new", .gpu/whl-n; its gpu-pack archive) against 7065000 ("old",
# .gpu/whl-h). The whole suite; keep-largest-keys' check.py large, and small
# under memcheck and racecheck; class-runs' check.py, and quick under
# memcheck; then two rounds of keep-largest-keys' ab.py and class-region-maps'
# regions.py (images) for old and new, alternating. Outputs tarred into
# w1.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl-h", ".gpu/whl-n"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/w1.tgz -C $O .; }
for w in whl-h whl-n; do
  rm -rf /tmp/$w; python3 -m pip install -q --no-index --no-deps --target /tmp/$w .gpu/$w/*.whl
done
K=bench/2026-11-29-h200-keep-largest-keys; C=bench/2026-11-28-h200-class-runs
R=bench/2026-11-29-h200-class-region-maps
SECONDS=0
timeout 230 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
PYTHONPATH=/tmp/whl-n timeout 40 python3 $K/check.py --size large > $O/keep-large.txt 2>&1
echo "keep large rc=$? ${SECONDS}s"; tail -1 $O/keep-large.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/whl-n timeout 40 compute-sanitizer --tool $tool --error-exitcode 1 python3 $K/check.py > $O/keep-$tool.txt 2>&1
  echo "keep $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok " $O/keep-$tool.txt | tail -2
done
PYTHONPATH=/tmp/whl-n timeout 60 python3 $C/check.py > $O/class-check.txt 2>&1
echo "class check rc=$? ${SECONDS}s"; tail -1 $O/class-check.txt
PYTHONPATH=/tmp/whl-n timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $C/check.py quick > $O/class-memcheck.txt 2>&1
echo "class memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY| ok" $O/class-memcheck.txt | tail -2
pack
for round in 1 2; do
  for w in whl-h whl-n; do
    tag=${w#whl-}
    PYTHONPATH=/tmp/$w timeout 60 python3 $K/ab.py --tag $tag --densities 10,30,60,90 --granularities 1,4 >> $O/keep-ab.csv 2>&1
    PYTHONPATH=/tmp/$w timeout 60 python3 $R/regions.py --images-only --reps 9 --tag $tag, >> $O/regions.csv 2>&1
    echo "round $round $tag ${SECONDS}s"
  done
  pack
done
