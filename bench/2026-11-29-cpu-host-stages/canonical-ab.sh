#!/usr/bin/env bash
# The join's last pass before (a search of the bands per label whose root
# is above) and after (ranks made global, then one gather), on the GPU
# machine's 16 host cores: stage-timing builds of both (.gpu/ccl-stages-old.xz,
# .gpu/ccl-stages-new.xz; JSTAGES offsets / borders / roots / canonical),
# alternating, three rounds, 2048² and 4096² at g = 1, the densities where a
# giant component spans the bands. Carry [".gpu/ccl-stages-old.xz",
# ".gpu/ccl-stages-new.xz"].
set -u
for b in old new; do
  python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl-stages-$b.xz'), open('/tmp/ccl-$b', 'wb'))" && chmod +x /tmp/ccl-$b
done
for round in 1 2 3; do
  for b in old new; do
    for size in 2048 4096; do
      for spec in "4 70" "4 90" "8 50" "8 70" "4 30"; do
        set -- $spec
        echo "== $b round $round size $size c $1 d $2"
        CCL_STAGES=1 /tmp/ccl-$b sweep -a cpu-rle --size ${size}x${size} --densities $2 --granularities 1 -c $1 \
          --task label --reps 15 --out /tmp/s 2>&1 >/dev/null | grep JSTAGES
        tail -n +2 /tmp/s/sweep.csv | cut -d, -f10
      done
    done
  done
done
