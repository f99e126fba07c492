"""The batch cells at g = 16 timed three ways on one wheel, to tell the
batch table's timing (time_batch_peers.py: a block of calls of one kind,
each call's result kept until the next returns) from profile.py's
(batch and image alternating, results dropped). Prints

  cell,way,call,median_ms

ways: "kept" (a block, the result kept as the table keeps it), "dropped"
(a block, each result dropped), "alternating" (as profile.py)."""

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402


def main():
    import cupy

    import ccl

    sync = cupy.cuda.Device().synchronize
    reps = 15
    for d, g, c in ((10, 16, 4), (30, 16, 4), (30, 16, 8), (30, 1, 4)):
        batch = cupy.asarray(np.stack([random_image(512, 512, d, g, i) for i in range(256)]))
        single = cupy.asarray(random_image(8192, 8192, d, g, 0))
        calls = {"batch": lambda: ccl.label(batch, c, batch=True), "image": lambda: ccl.label(single, c)}
        cell = f"{d}:{g}:{c}"
        for way in ("kept", "dropped", "alternating", "kept"):
            times = {name: [] for name in calls}
            blocks = [[name] * reps for name in calls] if way != "alternating" else [list(calls) * reps]
            for block in blocks:
                result = [calls[name]() for name in dict.fromkeys(block)]  # warm-up
                sync()
                for name in block:
                    start = time.perf_counter()
                    if way == "kept":
                        result = calls[name]()
                    else:
                        calls[name]()
                    sync()
                    times[name].append((time.perf_counter() - start) * 1e3)
                del result
            for name in calls:
                print(f"{cell},{way},{name},{statistics.median(times[name]):.4f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
