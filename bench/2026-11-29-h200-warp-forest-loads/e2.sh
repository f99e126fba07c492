#!/usr/bin/env bash
# Call 2: (a) the image unions' finds through L1 too (the trial "e2",
# .gpu/whl-e2) against a68a098 (.gpu/whl): band-forests' check.py large and
# small under memcheck, keep-largest-keys' check.py large (4096^2, 256^3
# against the host), ncu's flsl_unions of 8192^2 labels (keep-largest-keys'
# ab.py --reps 1) and that ab.py's wall times, alternating, two rounds.
# (b) e1's figures that did not come back: ncu's band unions per call of
# a748047 (.gpu/whl-base) and a68a098, band-forests' ab.py --volumes wall,
# one round each. Outputs tarred into e2.tgz. Carry [".gpu/whl", ".gpu/whl-e2", ".gpu/whl-base"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/e2.tgz -C $O .; }
rm -rf /tmp/site-e2 /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site-e2 .gpu/whl-e2/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-base/*.whl
B=bench/2026-11-29-h200-band-forests; K=bench/2026-11-29-h200-keep-largest-keys
SECONDS=0
PYTHONPATH=/tmp/site-e2 timeout 90 python3 $B/check.py --size large > $O/e2-check-large.txt 2>&1
echo "e2 check large rc=$? ${SECONDS}s"; grep -c "^ok" $O/e2-check-large.txt; grep -v "^ok" $O/e2-check-large.txt | tail -3
PYTHONPATH=/tmp/site-e2 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 python3 $B/check.py --size small > $O/e2-memcheck.txt 2>&1
echo "e2 memcheck rc=$? ${SECONDS}s"; grep -c "^ok" $O/e2-memcheck.txt; grep -E "SUMMARY|MISMATCH" $O/e2-memcheck.txt | tail -2
PYTHONPATH=/tmp/site-e2 timeout 90 python3 $K/check.py --size large > $O/e2-keep-large.txt 2>&1
echo "e2 keep large rc=$? ${SECONDS}s"; tail -2 $O/e2-keep-large.txt
pack
for tag in old e2; do
  site=/tmp/site; [ $tag = e2 ] && site=/tmp/site-e2
  PYTHONPATH=$site timeout 90 ncu -k regex:"flsl_unions" --metrics gpu__time_duration.sum --csv \
    python3 $K/ab.py --tag $tag --densities 10,30,60,90 --granularities 1,4 --reps 1 > $O/ncu-image-$tag.txt 2>&1
  echo "ncu image $tag rc=$? ${SECONDS}s"
  grep '"flsl_unions"' $O/ncu-image-$tag.txt | awk -F'","' '{print $NF}' | tr -d '"' | tr '\n' ' '; echo
done
for round in 1 2; do
  for tag in old e2; do
    site=/tmp/site; [ $tag = e2 ] && site=/tmp/site-e2
    PYTHONPATH=$site timeout 60 python3 $K/ab.py --tag $tag --densities 10,30,60,90 --granularities 1,4 2>/dev/null | grep ",label," | sed "s/^/$round,/" >> $O/image-ab.csv
  done
done
echo "image ab ${SECONDS}s"; pack
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 150 ncu -k regex:"band_unions|class_runs|classes_local" --metrics gpu__time_duration.sum --csv \
    python3 $B/ab.py --tag $tag --reps 1 --volumes > $O/ncu-bands-$tag.txt 2>&1
  echo "ncu bands $tag rc=$? ${SECONDS}s"
done
pack
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 120 python3 $B/ab.py --tag $tag --volumes >> $O/bands-ab.csv 2>&1
  echo "bands ab $tag rc=$? ${SECONDS}s"
done
pack; echo "all ${SECONDS}s"
