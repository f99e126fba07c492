"""Times keep-largest of one image against its plain label, in the user's
call (labeling included): `ccl.label(x, 8)`, `ccl.label(x, 8, largest=1)`
and `ccl.keep(x, 8, largest=1)` of 8192^2 CuPy images, and `ccl.label` /
`ccl.keep(largest=1)` of 192^3 torch volumes (26-connectivity), at the
densities and granularities given. One warm-up, then --reps synchronized
calls, the median kept; one CSV row per call:

  tag,input,density,g,call,ms

Images are docs/benchmark.md's random images (RandomState, seed 0), as
scripts/peers/time_filters.py draws them.

  PYTHONPATH=SITE python3 ab.py --tag new >> ab.csv
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import median_ms  # noqa: E402
from time_filters import random_array  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tag", required=True)
    parser.add_argument("--densities", default="10,30,60,90")
    parser.add_argument("--granularities", default="1,4")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    import cupy as cp
    import torch

    import ccl

    sync = cp.cuda.Device().synchronize
    for density in map(int, args.densities.split(",")):
        for g in map(int, args.granularities.split(",")):
            image = cp.asarray(random_array((8192, 8192), density, g))
            calls = {
                "label": lambda: ccl.label(image, 8),
                "label largest=1": lambda: ccl.label(image, 8, largest=1),
                "keep largest=1": lambda: ccl.keep(image, 8, largest=1),
            }
            for name, call in calls.items():
                ms = median_ms(sync, call, args.reps)
                print(f"{args.tag},8192^2,{density},{g},{name},{ms:.4f}", flush=True)
            del image
            volume = torch.from_numpy(random_array((192, 192, 192), density, g)).cuda()
            calls = {
                "label": lambda: ccl.label(volume, 26),
                "keep largest=1": lambda: ccl.keep(volume, 26, largest=1),
            }
            for name, call in calls.items():
                ms = median_ms(torch.cuda.synchronize, call, args.reps)
                print(f"{args.tag},192^3,{density},{g},{name},{ms:.4f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
