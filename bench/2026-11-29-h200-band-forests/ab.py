"""The calls whose band unions changed, time_batch_peers.py's images and
timing (median ms of 21 synchronized calls), one CSV line per cell; run in
alternating processes of two wheels for an A/B, or once under ncu:

  PYTHONPATH=SITE python3 ab.py --tag new >> ab.csv
  ncu -k regex:band_unions ... python3 ab.py --tag new --reps 1

Cells: 256 binary masks of 512^2 (4- and 8-conn.), 256 class maps of 512^2
(8-conn., time_classes.py's maps), a 512^3 volume (6- and 26-conn.).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import median_ms, random_image  # noqa: E402
from time_classes import class_map  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", required=True)
    parser.add_argument("--reps", type=int, default=21)
    parser.add_argument("--volumes", action="store_true")
    args = parser.parse_args()

    import cupy

    import ccl

    def row(kind, g, d, c, ms):
        print(f"{args.tag},{kind},{g},{d},{c},{ms:.4f}", flush=True)

    for g in (1, 4, 16):
        for d in (10, 30, 45, 60, 75, 90):
            batch = cupy.asarray(np.stack([random_image(512, 512, d, g, i) for i in range(256)]))
            for c in (4, 8):
                row("batch", g, d, c, median_ms(cupy, lambda: ccl.label(batch, c, batch=True), args.reps)[0])
            if g < 16 and d in (30, 60, 90):
                maps = cupy.asarray(np.stack([class_map((512, 512), d, g, seed=i) for i in range(256)]))
                row("classes", g, d, 8,
                    median_ms(cupy, lambda: ccl.label_classes(maps, 8, batch=True), args.reps)[0])
    if args.volumes:
        for g in (1, 4):
            for d in (30, 60, 90):
                vol = cupy.asarray(np.stack([random_image(512, 512, d, g, z) for z in range(512)]))
                for c in (6, 26):
                    row("volume", g, d, c, median_ms(cupy, lambda: ccl.label(vol, c), args.reps)[0])


if __name__ == "__main__":
    main()
