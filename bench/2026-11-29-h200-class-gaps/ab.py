"""The issue's class-map cells (8192^2 maps of 4 classes at 30/60/90 %,
g = 1 and 4, 4- and 8-connectivity, and the batch of 256 maps of 512^2 in
8-connectivity): `ccl.label` of the foreground and `ccl.label_classes`,
median ms of a synchronized call (time_classes.py's timing), one CSV line
per cell. Run in alternating processes of two wheels for an A/B:

  PYTHONPATH=SITE python3 ab.py --tag new --reps 15 >> ab.csv
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import class_map, median_ms  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", required=True)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()

    import cupy

    import ccl

    sync = cupy.cuda.Device().synchronize
    for density in (30, 60, 90):
        for g in (1, 4):
            values = cupy.asarray(class_map((8192, 8192), density, g))
            binary = values != 0
            for c in (4, 8):
                b = median_ms(sync, lambda: ccl.label(binary, c), args.reps)
                k = median_ms(sync, lambda: ccl.label_classes(values, c), args.reps)
                print(f"{args.tag},8192^2,{density},{g},{c},{b:.4f},{k:.4f},{k / b:.3f}", flush=True)
            batch = cupy.asarray(np.stack([class_map((512, 512), density, g, seed=i) for i in range(256)]))
            binary = batch != 0
            b = median_ms(sync, lambda: ccl.label(binary, 8, batch=True), args.reps)
            k = median_ms(sync, lambda: ccl.label_classes(batch, 8, batch=True), args.reps)
            print(f"{args.tag},256x512^2,{density},{g},8,{b:.4f},{k:.4f},{k / b:.3f}", flush=True)


if __name__ == "__main__":
    main()
