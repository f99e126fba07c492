#!/usr/bin/env bash
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
rm -rf /tmp/site-base /tmp/site-new; python3 -m pip install -q --no-index --no-deps --target /tmp/site-base .whlt/d/*.whl
cp -r /tmp/site-base /tmp/site-new
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/base-so.xz'), open('/tmp/site-base/ccl/_ccl.abi3.so', 'wb'))"
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.whlt/new-so.xz'), open('/tmp/site-new/ccl/_ccl.abi3.so', 'wb'))"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
export INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1
timeout 120 /tmp/nextest nextest run --archive-file .gpu/tests-sub.tar.zst --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "FAIL|panicked|Summary|TIMEOUT" | head -30 | tee $OUT/tests.txt
{ echo "== chk2"; PYTHONPATH=/tmp/site-new timeout 60 python3 .whlt/chk2.py 2>&1 | tail -2
  echo "== verify"; timeout 40 /tmp/ccl verify -a flsl-cd -a flsl -a flsl-otf --cases 20 2>&1 | tail -3
  for tool in memcheck racecheck; do echo "== $tool"; timeout 70 compute-sanitizer --tool $tool --error-exitcode 1 /tmp/ccl verify -a flsl-cd -a flsl-otf --random-only --cases 8 2>&1 | tail -2; done
} 2>&1 | tee $OUT/checks.txt
for w in new base; do PYTHONPATH=/tmp/site-$w timeout 70 python3 .whlt/ab.py $w-1 4 >> $OUT/ab.txt 2>&1; done
for m in "batch 1 75 4" "batch 16 10 4" "one 1 30 4"; do for w in new base; do
  echo "== $w $m"; PYTHONPATH=/tmp/site-$w timeout 30 ncu --profile-from-start off --csv --metrics gpu__time_duration.sum -k regex:flsl_runs python3 .whlt/pb.py $m 2>/dev/null | grep -E "flsl_runs" | awk -F'","' '{print "   ", $5, $NF}'
done; done 2>&1 > $OUT/ncu.txt
cat $OUT/ncu.txt
