#!/usr/bin/env bash
# The GPU machine's 16 host cores, cpu-rle with its passes forked from a
# pool worker (in_pool; .gpu/ccl-pool.xz) beside 5703fad's (.gpu/ccl-head.xz):
# issue 25's run on the new binary (run.sh, OpenCV on 16 threads, cc3d
# 4.1.1 on one); the separate-process crossover of both binaries; both
# binaries' cpu-rle in alternating processes at 2048² and 4096²
# (ab-16core.csv, two rounds). Carry [".gpu/ccl-head.xz", ".gpu/ccl-pool.xz",
# ".gpu/cc3d"].
set -u
B=bench/2026-11-30-cpu-pool-passes
SECONDS=0
for tag in ccl-head ccl-pool; do
  python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" .gpu/$tag.xz /tmp/$tag
  chmod +x /tmp/$tag
done
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/cc3d/connected_components_3d-*.whl
PYTHONPATH=/tmp/site CCL_PEERS_PYTHON=python3 timeout 280 bench/2026-11-25-cpu-every-density/run.sh /tmp/ccl-pool $OUT/h200-host-16core 16 > $OUT/host.log 2>&1
echo "run rc=$? ${SECONDS}s"; nproc; lscpu | grep "Model name"
python3 bench/2026-11-25-cpu-every-density/tables.py $OUT/h200-host-16core | grep -E "under|^###"
for tag in ccl-head ccl-pool; do
  timeout 60 bench/2026-11-29-cpu-every-density-7/crossover.sh /tmp/$tag 2 > $OUT/crossover-$tag.csv
  echo "crossover $tag rc=$? ${SECONDS}s"
done
echo "round,build,side,variant,backend,connectivity,task,width,height,granularity,density,reps,median_ms,min_ms,gpx_per_s,transfer_ms,stages,pattern" > $OUT/ab-16core.csv
for round in 1 2; do
  for tag in ccl-head ccl-pool; do
    for side in 2048 4096; do
      timeout 60 /tmp/$tag sweep -a cpu-rle --size ${side}x${side} --densities 10,30,50,70,90 --task both \
        --reps 7 --out /tmp/ab >/dev/null 2>&1
      tail -n +2 /tmp/ab/sweep.csv | awk -F, -v r=$round -v b=$tag -v s=$side '{print r","b","s","$0}' >> $OUT/ab-16core.csv
    done
  done
  echo "ab round $round ${SECONDS}s"
done
