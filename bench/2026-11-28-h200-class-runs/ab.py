"""Times `ccl.label_classes` beside `ccl.label` of the same foreground, on
CuPy maps of 4 classes (scripts/peers/time_classes.py's maps and timing),
for the wheel on PYTHONPATH; prints one line per input. The inputs are the
README table's device rows without the 512^3 volume (whose path this change
does not take):

  PYTHONPATH=<wheel's site> python3 ab.py TAG [--reps 7]
"""

import sys
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))
from time_classes import class_map, median_ms  # noqa: E402

import ccl  # noqa: E402


def main():
    tag = sys.argv[1]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    sync = cupy.cuda.Device().synchronize
    for density in (30, 60, 90):
        for g in (1, 4):
            values = cupy.asarray(class_map((8192, 8192), density, g))
            binary = values != 0
            for connectivity in (4, 8):
                binary_ms = median_ms(sync, lambda: ccl.label(binary, connectivity), reps)
                ms = median_ms(sync, lambda: ccl.label_classes(values, connectivity), reps)
                print(f"{tag},8192^2,{density},{g},{connectivity},{binary_ms:.3f},{ms:.3f},{ms / binary_ms:.2f}", flush=True)
            del values, binary
            batch = cupy.asarray(np.stack([class_map((512, 512), density, g, seed=i) for i in range(256)]))
            binary = batch != 0
            binary_ms = median_ms(sync, lambda: ccl.label(binary, 8, batch=True), reps)
            ms = median_ms(sync, lambda: ccl.label_classes(batch, 8, batch=True), reps)
            print(f"{tag},256x512^2,{density},{g},8,{binary_ms:.3f},{ms:.3f},{ms / binary_ms:.2f}", flush=True)
            del batch, binary


if __name__ == "__main__":
    main()
