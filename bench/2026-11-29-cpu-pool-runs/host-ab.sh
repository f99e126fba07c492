#!/usr/bin/env bash
# On the GPU machine's 16 host cores: the pool (cpu-rle) against one thread
# (cpu-rle-1t) by image size and g, the pixel bar alone (.gpu/ccl.xz,
# 38211a2) against the pixel bar and the runs (.gpu/ccl-runs.xz), each
# sweep in a process of its own, binaries alternating, three rounds.
# Carry [".gpu/ccl.xz", ".gpu/ccl-runs.xz"].
set -u
for b in ccl ccl-runs; do
  python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/$b.xz'), open('/tmp/$b', 'wb'))" && chmod +x /tmp/$b
done
echo "binary,round,variant,side,granularity,density,median_ms"
for round in 1 2 3; do
  for b in ccl ccl-runs; do
    for v in cpu-rle cpu-rle-1t; do
      for side in 256 384 512 768 1024 1448 2048; do
        /tmp/$b sweep -a $v --size ${side}x${side} --densities 10,30,50,70,90 --granularities 1,4,16 -c 8 \
          --task label --reps 15 --out /tmp/s-$b >/dev/null 2>&1
        tail -n +2 /tmp/s-$b/sweep.csv | awk -F, -v b=$b -v r=$round -v v=$v -v s=$side '{print b","r","v","s","$7","$8","$10}'
      done
    done
  done
done
