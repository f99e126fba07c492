#!/usr/bin/env bash
# Call: the code with launch divisors (FLSL's per-run kernels, a batch's
# image base). The gpu-pack suite; band-forests' check.py (batches, class
# batches, volumes against the host) large, then small under memcheck and
# racecheck; keep-largest-keys' check.py small under memcheck; ncu's kernel
# times, this wheel ("new") and the one before ("old"), of gaps.py's batch
# cells and of one 8192^2 label at 10 %, g = 1 (ab.py); gaps.py wall times
# in alternating processes, three rounds. Carry [".gpu"].
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 230 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-prev/*.whl
forests=bench/2026-11-29-h200-band-forests
keep=bench/2026-11-29-h200-keep-largest-keys
gaps=bench/2026-11-29-h200-batch-gaps
PYTHONPATH=/tmp/site timeout 120 python3 $forests/check.py --size large > $OUT/check-large.txt 2>&1
echo "check rc=$? ${SECONDS}s"; grep -c "^ok" $OUT/check-large.txt; grep MISMATCH $OUT/check-large.txt
for tool in memcheck racecheck; do
  PYTHONPATH=/tmp/site timeout 120 compute-sanitizer --tool $tool python3 $forests/check.py --size small > $OUT/check-$tool.txt 2>&1
  echo "check $tool rc=$? ${SECONDS}s"; grep -c "^ok" $OUT/check-$tool.txt; grep -E "SUMMARY|MISMATCH" $OUT/check-$tool.txt | tail -2
done
PYTHONPATH=/tmp/site timeout 60 compute-sanitizer --tool memcheck python3 $keep/check.py > $OUT/keep-memcheck.txt 2>&1
echo "keep memcheck rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok " $OUT/keep-memcheck.txt | tail -2
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    python3 $gaps/gaps.py --cells 75:1:4,60:1:8,30:4:4,10:16:4 --reps 1 > $OUT/ncu-batch-$tag.txt 2>&1
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    python3 $keep/ab.py --tag $tag --densities 10,60 --granularities 1 --reps 1 > $OUT/ncu-image-$tag.txt 2>&1
  echo "ncu $tag ${SECONDS}s"
done
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site python3 $gaps/gaps.py --cells 75:1:4,60:1:8,30:4:4,10:16:4 --reps 40 2>&1 | sed "s/^/$round,$tag,/" >> $OUT/gaps.csv
  done
done
echo "all ${SECONDS}s"
