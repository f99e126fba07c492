"""Times ccl from Python on CuPy arrays, on the images `ccl sweep` times from Rust.

Checks that labeling from Python adds no host copy: for each image that
`ccl gen` writes for a density and granularity (the sweep's images, seed 0),
the device-resident time of `ccl.label` / `ccl.analyze` on a CuPy array,
measured with CUDA events on the current stream (median of --reps after a
warm-up), is written as CSV rows beside the Rust `TimedRun` figures of
`ccl sweep --out DIR` (sweep.csv) for the same variant, task and image.

    ccl sweep -a ha8-32 --size 8192x8192 --densities 10,50,90 --granularities 1,4,16 --out S
    python ccl-python/bench/python_vs_rust.py --ccl .gpu/ccl --sweep S/sweep.csv -a ha8-32

`label` from Python does the same work as the Rust run it is compared with
(both write the canonical labels in the variant's last pass) plus the read
of the count; `analyze` the same work as its `TimedRun` plus the copy of
the features into the caller's arrays.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from statistics import median


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ccl", default="target/release/ccl", help="the ccl binary (for ccl gen)")
    parser.add_argument("--sweep", required=True, help="sweep.csv of `ccl sweep` on the same images")
    parser.add_argument("-a", "--algorithm", action="append", required=True)
    parser.add_argument("--size", default="8192x8192")
    parser.add_argument("--densities", default="10,50,90")
    parser.add_argument("--granularities", default="1,4,16")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()

    import cupy
    import cv2

    import ccl

    rust = defaultdict(list)
    with open(args.sweep, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["variant"], row["task"], row["connectivity"], row["density"], row["granularity"])
            rust[key].append(float(row["median_ms"]))

    writer = csv.writer(sys.stdout)
    writer.writerow(["variant", "task", "connectivity", "density", "granularity", "python_ms", "rust_ms", "ratio"])
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    with tempfile.TemporaryDirectory() as folder:
        for d in args.densities.split(","):
            for g in args.granularities.split(","):
                path = os.path.join(folder, f"d{d}g{g}.png")
                subprocess.run([args.ccl, "gen", "--size", args.size, "-d", d, "-g", g, "-o", path], check=True)
                image = cupy.asarray(cv2.imread(path, cv2.IMREAD_GRAYSCALE))
                for name in args.algorithm:
                    info = next(a for a in ccl.algorithms() if a.name == name)
                    for connectivity in (c for c in info.connectivities if c in (4, 8)):
                        for task, call in (("label", ccl.label), ("analyze", ccl.analyze)):
                            if task not in info.tasks:
                                continue
                            times = []
                            for rep in range(args.reps + 1):
                                start.record()
                                call(image, connectivity, algorithm=name)
                                end.record()
                                end.synchronize()
                                if rep:
                                    times.append(cupy.cuda.get_elapsed_time(start, end))
                            python_ms = median(times)
                            key = (name, task, str(connectivity), d, g)
                            rust_ms = rust[key][0] if rust.get(key) else float("nan")
                            writer.writerow([name, task, connectivity, d, g, f"{python_ms:.4f}",
                                             f"{rust_ms:.4f}", f"{python_ms / rust_ms:.3f}"])  # fmt: skip
                            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
