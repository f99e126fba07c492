#!/usr/bin/env bash
# The final code (first rows by divisors; a half-warp's run walk loads no
# words after its last iteration, a warp's as before; the short-row pixel
# pass's one division): the Rust suite on gpu-pack's archive; sanity.py,
# and under memcheck and racecheck; ncu's warm kernel times and
# instructions of profile.py's 30 %, g = 16, 4-conn. cell for both wheels
# (HEAD's kernels: .gpu/whl-new2); profile.py A/B, three rounds of
# alternating processes; the batch table's g = 16 cells
# (time_batch_peers.py, 15 reps, without CV-CUDA, as in
# ../2026-11-29-h200-batch-g16). Outputs in c7.tgz. Carry
# [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz",
# ".gpu/whl-rows", ".gpu/whl-new2"].
set -u
O=/tmp/o; rm -rf $O; mkdir -p $O
pack() { tar -czf $OUT/c7.tgz -C $O .; }
here=bench/2026-11-30-h200-batch-rows
SECONDS=0
timeout 240 .gpu/run-tests > $O/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $O/tests.txt | tail -8
pack
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-rows/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/site-old .gpu/whl-new2/*.whl
export PYTHONPATH=/tmp/site
timeout 60 python3 $here/sanity.py > $O/sanity.txt 2>&1; echo "sanity rc=$? ${SECONDS}s"; tail -1 $O/sanity.txt
for tool in memcheck racecheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 1 python3 $here/sanity.py > $O/sanity-$tool.txt 2>&1
  echo "sanity $tool rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok:|FAILED" $O/sanity-$tool.txt | tail -2
done
pack
for run in old-1 new-1 old-2 new-2; do
  site=/tmp/site; [ ${run%-*} = old ] && site=/tmp/site-old
  PYTHONPATH=$site timeout 60 ncu --clock-control none --cache-control none \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv \
    python3 $here/profile.py --cells 30:16:4 --reps 1 > $O/ncu-$run.txt 2>&1
  echo "ncu $run ${SECONDS}s"
done
for round in 1 2 3; do
  for tag in old new; do
    site=/tmp/site; [ $tag = old ] && site=/tmp/site-old
    PYTHONPATH=$site timeout 60 python3 $here/profile.py 2>>$O/ab.err | sed "s/^/$tag,$round,/" >> $O/ab.csv
  done
  echo "round $round ${SECONDS}s"
done
pack
timeout 100 python3 scripts/peers/time_batch_peers.py --densities 10,30 --granularities 16 \
  --reps 15 --loop-reps 1 --out $O/batch-peers.csv > $O/batch-peers.txt 2>&1
echo "batch table rc=$? ${SECONDS}s"; tail -6 $O/batch-peers.txt
pack
