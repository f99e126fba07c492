#!/usr/bin/env bash
# Where a labeling and an analysis go on the GPU machine's 16 host cores:
# the stage times a build with the stage-timing patch prints with
# CCL_STAGES=1 (.gpu/ccl-stages.xz: STAGES bands / join / write of a
# labeling, ASTAGES bands / join of an analysis, JSTAGES borders / roots
# inside each join), per cell, every call's line. Carry [".gpu/ccl-stages.xz"].
set -u
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl-stages.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
for size in 4096 2048; do
  for c in 4 8; do
    for task in label analyze; do
      for d in 10 30 50 70 90; do
        echo "== size $size c $c task $task d $d"
        CCL_STAGES=1 /tmp/ccl sweep -a cpu-rle --size ${size}x${size} --densities $d --granularities 1 -c $c \
          --task $task --reps 15 --out /tmp/s 2>&1 >/dev/null | grep STAGES
        tail -n +2 /tmp/s/sweep.csv | cut -d, -f10
      done
    done
  done
done
