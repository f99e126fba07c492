"""Runs per pixel of time_classes.py's class maps (4 classes) beside the
binary image of the same foreground (`map != 0`), which the class table's
ratio divides by: a run is a foreground pixel whose left neighbour is
background or (in the map) of another value. The labelers' work follows
the runs (FLSL's and cpu-rle's union-find nodes are runs). The maps'
statistics do not depend on the size; 2048^2 is computed.

  python3 runs.py > runs.md
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import class_map  # noqa: E402


def runs_per_pixel(values):
    left = np.zeros_like(values)
    left[:, 1:] = values[:, :-1]
    return np.count_nonzero((values != 0) & (values != left)) / values.size


def main():
    print("| density % | g | map runs / px | binary runs / px | map / binary |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for density in (30, 60, 90):
        for g in (1, 4):
            values = class_map((2048, 2048), density, g, seed=0)
            classes = runs_per_pixel(values)
            binary = runs_per_pixel((values != 0).astype(np.uint8))
            print(f"| {density} | {g} | {classes:.3f} | {binary:.3f} | {classes / binary:.2f} |")


if __name__ == "__main__":
    main()
