#!/usr/bin/env bash
# One device call at fb213f5: the Rust suite on this exact tree (gpu-pack's
# archive; the suite had last run at 526e508), then the CPU issue's run on
# the GPU machine's 16 host cores (run.sh, OpenCV on 16 threads, cc3d 4.1.1
# on one), then 6cabfae's cpu-rle against this commit's on the same host,
# alternating processes (ab-16core.csv). Carry [".gpu/run-tests",
# ".gpu/tests.tar.zst", ".gpu/cargo-nextest.xz", ".gpu/ccl.xz",
# ".gpu/ccl-6cabfae.xz", ".gpu/pyt"].
set -u
B=bench/2026-11-29-cpu-every-density-8
SECONDS=0
timeout 230 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -8
for tag in ccl ccl-6cabfae; do
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" .gpu/$tag.xz /tmp/$tag
  chmod +x /tmp/$tag
done
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/pyt/connected_components_3d-*.whl
PYTHONPATH=/tmp/site CCL_PEERS_PYTHON=python3 timeout 260 bench/2026-11-25-cpu-every-density/run.sh /tmp/ccl $OUT/h200-host-16core 16 > $OUT/host.log 2>&1
echo "run rc=$? ${SECONDS}s"; nproc; lscpu | grep "Model name"
python3 bench/2026-11-25-cpu-every-density/tables.py $OUT/h200-host-16core | grep -E "under|^###"
echo "round,build,side,variant,backend,connectivity,task,width,height,granularity,density,reps,median_ms,min_ms,gpx_per_s,transfer_ms,stages,pattern" > $OUT/ab-16core.csv
for round in 1 2; do
  for tag in ccl-6cabfae ccl; do
    for side in 2048 4096; do
      timeout 60 /tmp/$tag sweep -a cpu-rle --size ${side}x${side} --densities 10,30,50,70,90 --task both \
        --reps 7 --out /tmp/ab >/dev/null 2>&1
      tail -n +2 /tmp/ab/sweep.csv | awk -F, -v r=$round -v b=$tag -v s=$side '{print r","b","s","$0}' >> $OUT/ab-16core.csv
    done
  done
  echo "ab round $round ${SECONDS}s"
done
