"""Class volumes on the GPU: 512^3 CuPy maps of 4 classes (time_classes.py's
maps: a class drawn per g*g*g cell) at 30/60/90 %, g = 1 and 4, in 6-, 18-
and 26-connectivity: `ccl.label` of the foreground and `ccl.label_classes`,
median ms of a synchronized call (time_classes.py's timing), one CSV line
per cell. The maps are drawn once and kept in --cache. Run in alternating
processes of two wheels for an A/B:

  PYTHONPATH=SITE python3 vab.py --tag new --reps 9 >> vab.csv
  PYTHONPATH=SITE python3 vab.py --tag new --densities 40,50 --granularities 1
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import class_map, median_ms  # noqa: E402

SIDE = 512


def cached_map(cache, density, g):
    path = cache / f"map-{SIDE}-{density}-{g}.npy"
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        np.save(path, class_map((SIDE, SIDE, SIDE), density, g))
    return np.load(path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", required=True)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/class-volumes"))
    parser.add_argument("--densities", default="30,60,90")
    parser.add_argument("--granularities", default="1,4")
    args = parser.parse_args()

    import cupy

    import ccl

    sync = cupy.cuda.Device().synchronize
    for density in [int(d) for d in args.densities.split(",")]:
        for g in [int(g) for g in args.granularities.split(",")]:
            values = cupy.asarray(cached_map(args.cache, density, g))
            binary = values != 0
            for c in (6, 18, 26):
                b = median_ms(sync, lambda: ccl.label(binary, c), args.reps)
                k = median_ms(sync, lambda: ccl.label_classes(values, c), args.reps)
                print(f"{args.tag},{SIDE}^3,{density},{g},{c},{b:.4f},{k:.4f},{k / b:.3f}", flush=True)
            del values, binary


if __name__ == "__main__":
    main()
