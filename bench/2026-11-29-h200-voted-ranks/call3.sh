#!/usr/bin/env bash
# The final code: the votes' ranks read by the last pass, and one image's
# largest alone written by the pixel pass from them (flsl_label_largest_pixels).
# The Rust suite on gpu-pack's archive of it; check.py (every kind of
# filter, images and batches, against the CPU) large, and small under
# memcheck and racecheck; keep-largest-keys' check.py large; the filter and
# GPU pytest files; keep-largest-keys' ab.py against the wheel of fb213f5's
# kernels (.gpu/whl-f), three rounds of alternating processes; ncu's kernel
# times of one label(largest=1) at 8192^2, 10 %, g = 1; the batch table's
# g = 16 cells (time_batch_peers.py, 15 reps; without CV-CUDA, whose 28 MB
# would take the carry past 64 MiB). Outputs in c3.tgz. Carry
# [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz",
# ".gpu/whl-new2", ".gpu/whl-f", ".gpu/pyt"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c3.tgz -C $O .; }
SECONDS=0
here=bench/2026-11-29-h200-voted-ranks; K=bench/2026-11-29-h200-keep-largest-keys
timeout 230 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
rm -rf /tmp/site /tmp/site-old
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-new2/*.whl .gpu/pyt/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-f/*.whl
export PYTHONPATH=/tmp/site
timeout 90 python3 $here/check.py --size large > $O/check-large.txt 2>&1; echo "check large rc=$? ${SECONDS}s"; tail -1 $O/check-large.txt
timeout 60 python3 $K/check.py --size large > $O/keep-large.txt 2>&1; echo "keep large rc=$? ${SECONDS}s"; tail -1 $O/keep-large.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 python3 $here/check.py --densities 10,60 --granularities 1 > $O/check-$tool.txt 2>&1
  echo "check $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:|FAILED" $O/check-$tool.txt | tail -2
done
pack
timeout 120 python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_filters.py \
  ccl-python/tests/test_classes_filters.py ccl-python/tests/test_gpu.py > $O/pytest.txt 2>&1
echo "pytest rc=$? ${SECONDS}s"; tail -1 $O/pytest.txt
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $K/ab.py --tag $tag >> $O/ab.csv 2>>$O/ab.err
  done
  echo "round $round ${SECONDS}s"
done
pack
timeout 60 ncu --metrics gpu__time_duration.sum --csv \
  python3 $K/ab.py --tag new --densities 10 --granularities 1 --reps 1 > $O/ncu-new.txt 2>&1
echo "ncu new rc=$? ${SECONDS}s"
timeout 100 python3 scripts/peers/time_batch_peers.py --densities 10,30 --granularities 16 \
  --reps 15 --loop-reps 1 --out $O/batch-peers.csv > $O/batch-peers.txt 2>&1
echo "batch table rc=$? ${SECONDS}s"; tail -6 $O/batch-peers.txt
pack
