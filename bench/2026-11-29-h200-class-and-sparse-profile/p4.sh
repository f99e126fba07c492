#!/usr/bin/env bash
# Call 4: vote_areas adding the row's giant component in shared memory
# (54d25b5, .gpu/whl-v; its gpu-pack archive): keep-largest-keys' check.py
# large and small under racecheck, its ab.py (8192^2 label against
# label(largest=1) and keep(largest=1), 192^3 keep), then the whole suite.
# Carry [".gpu/run-tests", ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz", ".gpu/whl-v"].
set -u
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl-v/*.whl
K=bench/2026-11-29-h200-keep-largest-keys
SECONDS=0
PYTHONPATH=/tmp/site timeout 40 python3 $K/check.py --size large > $OUT/keep-large.txt 2>&1
echo "keep large rc=$? ${SECONDS}s"; tail -1 $OUT/keep-large.txt
PYTHONPATH=/tmp/site timeout 30 compute-sanitizer --tool racecheck --error-exitcode 1 python3 $K/check.py > $OUT/keep-racecheck.txt 2>&1
echo "keep racecheck rc=$? ${SECONDS}s"; grep -E "SUMMARY|ok " $OUT/keep-racecheck.txt | tail -2
PYTHONPATH=/tmp/site timeout 30 python3 $K/ab.py --tag 54d25b5 --densities 10,30,60,90 --granularities 1,4 > $OUT/keep-ab.csv 2>&1
echo "keep ab rc=$? ${SECONDS}s"
timeout 170 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
