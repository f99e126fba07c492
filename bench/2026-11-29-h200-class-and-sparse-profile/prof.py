"""The calls whose kernels p1.sh profiles, each made twice (a warm-up, then
the profiled one), one line per call on stdout:

- an 8192^2 map of 128-pixel class regions (class-region-maps' regions.py,
  90 % and 60 %, g = 1, 8-conn.): `ccl.label` of its foreground, then
  `ccl.label_classes` of the map;
- 256 masks of 512^2 and one 8192^2 image (time_batch_peers.py's), 10 %,
  g = 16, 4-conn.: `ccl.label(batch, batch=True)`, then `ccl.label`.

  PYTHONPATH=SITE ncu --csv --metrics gpu__time_duration.sum python3 prof.py
"""

import sys
from pathlib import Path

import numpy as np

here = Path(__file__).resolve()
sys.path.insert(0, str(here.parents[2] / "scripts" / "peers"))
sys.path.insert(0, str(here.parents[1] / "2026-11-29-h200-class-region-maps"))

from regions import region_map  # noqa: E402
from time_batch_peers import random_image  # noqa: E402


def main():
    import cupy

    import ccl

    def twice(name, call):
        for _ in range(2):
            call()
        cupy.cuda.Device().synchronize()
        print(name, flush=True)

    for density in (90, 60):
        values = cupy.asarray(region_map((8192, 8192), density, 1))
        binary = values != 0
        twice(f"binary {density}", lambda: ccl.label(binary, 8))
        twice(f"classes {density}", lambda: ccl.label_classes(values, 8))
        del values, binary
    batch = cupy.asarray(np.stack([random_image(512, 512, 10, 16, i) for i in range(256)]))
    twice("batch 10 16", lambda: ccl.label(batch, 4, batch=True))
    single = cupy.asarray(random_image(8192, 8192, 10, 16, 0))
    twice("one 10 16", lambda: ccl.label(single, 4))


if __name__ == "__main__":
    main()
