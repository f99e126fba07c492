#!/usr/bin/env bash
# The final code (first rows by divisors, the run kernel's next-word loads
# skipped after a row's last iteration, the short-row pixel pass's one
# division; the root count as at HEAD): the Rust suite on gpu-pack's
# archive; sanity.py, and under memcheck and racecheck; the batch, class,
# volume, filter and GPU pytest files; ncu's warm kernel times and
# instructions of profile.py's 30 %, g = 16, 4-conn. cell and of dense.py's
# batches for both wheels; profile.py A/B against the wheel of HEAD's
# kernels (.gpu/whl-new2), three rounds of alternating processes. Outputs
# in c6.tgz. Carry [".gpu/run-tests", ".gpu/tests.tar.zst",
# ".gpu/cargo-nextest.xz", ".gpu/whl-rows", ".gpu/whl-new2", ".gpu/pyt"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c6.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
timeout 240 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-new2/*.whl
export PYTHONPATH=/tmp/site
timeout 60 python3 $here/sanity.py > $O/sanity.txt 2>&1; echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 python3 $here/sanity.py > $O/sanity-$tool.txt 2>&1
  echo "sanity $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:|FAILED" $O/sanity-$tool.txt | tail -2
done
pack
timeout 150 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_batches.py ccl-python/tests/test_classes.py \
  ccl-python/tests/test_volumes.py ccl-python/tests/test_gpu.py ccl-python/tests/test_filters.py > $O/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $O/pytest.txt
pack
for tag in old new; do
  site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/profile.py --cells 30:16:4 --reps 1 > $O/ncu-$tag.txt 2>&1
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none -k regex:"flsl" \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/dense.py > $O/ncu-dense-$tag.txt 2>&1
  echo "ncu $tag ${SECONDS}s"
done
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
done
pack
