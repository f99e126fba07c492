"""Issue 26's batch cells beside one image: `ccl.label(batch, c, batch=True)`
(256 masks of 512^2) and `ccl.label(image, c)` (one 8192^2 image of the
same density), drawn as scripts/peers/time_batch_peers.py draws them. One
warm-up, then --reps calls of each, alternating; for each call the time
until `ccl.label` returns (the host's part: the launches, and for one image
the wait for its component count) and until the device is done
(synchronized). Prints the medians as

  cell,call,returned_ms,synchronized_ms
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
    parser.add_argument("--cells", default="10:16:4,30:16:4,10:16:8,30:16:8,30:1:4,60:4:8")
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
        returned = {name: [] for name in calls}
        synchronized = {name: [] for name in calls}
        for call in calls.values():
            call()
        sync()
        for _ in range(args.reps):
            for name, call in calls.items():
                start = time.perf_counter()
                call()
                middle = time.perf_counter()
                sync()
                end = time.perf_counter()
                returned[name].append((middle - start) * 1e3)
                synchronized[name].append((end - start) * 1e3)
        for name in calls:
            print(
                f"{cell},{name},{statistics.median(returned[name]):.4f},"
                f"{statistics.median(synchronized[name]):.4f}",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
