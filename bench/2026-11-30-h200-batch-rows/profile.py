"""The batch cells under 0.8 of one image's throughput (issue 26: 256
masks of 512^2 at g = 16, 10-30 %): `ccl.label(batch, c, batch=True)`
beside `ccl.label(image, c)` of one 8192^2 image of the same density,
drawn as scripts/peers/time_batch_peers.py draws them. One warm-up, then
--reps synchronized calls of each, alternating, the medians printed as

  cell,call,median_ms

Under ncu with --reps 1, the kernels of one call of each.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default="10:16:4,30:16:4,10:16:8,30:16:8")
    parser.add_argument("--reps", type=int, default=40)
    args = parser.parse_args()
    import cupy

    import ccl

    sync = cupy.cuda.Device().synchronize
    for cell in args.cells.split(","):
        d, g, c = map(int, cell.split(":"))
        batch = cupy.asarray(np.stack([random_image(512, 512, d, g, i) for i in range(256)]))
        single = cupy.asarray(random_image(8192, 8192, d, g, 0))
        calls = {
            "batch": lambda: ccl.label(batch, c, batch=True),
            "image": lambda: ccl.label(single, c),
        }
        times = {name: [] for name in calls}
        for call in calls.values():
            call()
        sync()
        for _ in range(args.reps):
            for name, call in calls.items():
                start = time.perf_counter()
                call()
                sync()
                times[name].append((time.perf_counter() - start) * 1e3)
        for name in calls:
            print(f"{cell},{name},{statistics.median(times[name]):.4f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
