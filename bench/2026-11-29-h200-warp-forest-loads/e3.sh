#!/usr/bin/env bash
# Call 3: the code of the L1 parent loads (the commit after a68a098; gpu-pack
# archive and .gpu/whl): the whole suite; band-forests' check.py large and
# keep-largest-keys' check.py large and small under memcheck; and the trial "e3" (.gpu/whl-e3: a class map image's unions
# through L1 too) against it: class-runs' check.py (class images and
# batches against the host), its ab.py and the region maps' regions.py for
# both wheels. Outputs tarred into e3.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl", ".gpu/whl-e3"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/e3.tgz -C $O .; }
rm -rf /tmp/site /tmp/site-e3
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-e3 .gpu/whl-e3/*.whl
F=bench/2026-11-29-h200-band-forests; K=bench/2026-11-29-h200-keep-largest-keys
C=bench/2026-11-28-h200-class-runs; R=bench/2026-11-29-h200-class-region-maps
SECONDS=0
timeout 230 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
PYTHONPATH=/tmp/site timeout 60 python3 $F/check.py --size large > $O/check-large.txt 2>&1
echo "check large rc=$? ${SECONDS}s"; grep -c "^ok" $O/check-large.txt; grep -v "^ok" $O/check-large.txt | tail -3
PYTHONPATH=/tmp/site timeout 60 python3 $K/check.py --size large > $O/keep-large.txt 2>&1
echo "keep large rc=$? ${SECONDS}s"; tail -1 $O/keep-large.txt
PYTHONPATH=/tmp/site timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $K/check.py > $O/keep-memcheck.txt 2>&1
echo "keep memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok " $O/keep-memcheck.txt | tail -2
pack
PYTHONPATH=/tmp/site-e3 timeout 60 python3 $C/check.py > $O/e3-class-check.txt 2>&1
echo "e3 class check rc=$? ${SECONDS}s"; tail -2 $O/e3-class-check.txt
for tag in base e3; do
  site=/tmp/site; [ $tag = e3 ] && site=/tmp/site-e3
  PYTHONPATH=$site timeout 60 python3 $C/ab.py $tag >> $O/class-ab.csv 2>&1; echo "class ab $tag rc=$? ${SECONDS}s"
done
for tag in base e3; do
  site=/tmp/site; [ $tag = e3 ] && site=/tmp/site-e3
  PYTHONPATH=$site timeout 60 python3 $R/regions.py --reps 9 --tag $tag, >> $O/regions.csv 2>&1; echo "regions $tag rc=$? ${SECONDS}s"
done
pack; echo "all ${SECONDS}s"
