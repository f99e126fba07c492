"""Where the time of `ccl.label_classes` goes, kernel by kernel: one call of
each case (8192^2 maps of 4 classes, docs/benchmark.md's "Class maps") and
the binary `ccl.label` of the same foreground, after a warm-up, between
cudaProfilerStart and cudaProfilerStop, for ncu to time (its clocks are
locked lower than a timed run's: read shares, not the table's figures):

  ncu --profile-from-start off --metrics gpu__time_duration.sum --csv \\
      python3 scripts/peers/profile_classes.py > kernels.csv

Cases are density,granularity,connectivity triples (--cases 90,4,8 60,1,8).
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from time_classes import class_map  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", default=["90,4,8", "60,1,8", "90,4,4"])
    args = parser.parse_args()

    import cupy

    import ccl

    maps = []
    for case in args.cases:
        density, g, connectivity = (int(v) for v in case.split(","))
        values = cupy.asarray(class_map((8192, 8192), density, g))
        binary = values != 0
        ccl.label(binary, connectivity)
        ccl.label_classes(values, connectivity)
        maps.append((values, binary, connectivity))
    cupy.cuda.Device().synchronize()
    cupy.cuda.runtime.profilerStart()
    for values, binary, connectivity in maps:
        ccl.label(binary, connectivity)
        ccl.label_classes(values, connectivity)
    cupy.cuda.Device().synchronize()
    cupy.cuda.runtime.profilerStop()


if __name__ == "__main__":
    main()
