"""Class maps whose classes come in regions, as a segmentation's do, beside
the maps of time_classes.py, whose class is drawn per cell: the same
foreground (time_classes.py's class_map at density d and granularity g,
nonzero), its class the region it lies in, 1 + (x // R + y // R [+ z // R])
% 4 with regions of R = 128 pixels a side. Such a map has nearly the runs of
its binary image (a run is cut only where it crosses a region's edge), so
the ratio to the binary label is the class labeler's own overhead. Inputs:
an 8192^2 CuPy map (4 and 8), the batch of 256 maps of 512^2 (8, one call)
and a 512^3 map (6 and 26); `ccl.label` of the foreground and
`ccl.label_classes`, median ms of --reps synchronized calls
(time_classes.py's timing), the runs of both counted on the GPU. One CSV
line per cell:

  input,density,g,connectivity,binary_ms,classes_ms,ratio,binary_runs,class_runs

  PYTHONPATH=SITE python3 regions.py --reps 9 > regions.csv
  PYTHONPATH=SITE python3 regions.py --volumes-only --tag new, >> vregions.csv
  PYTHONPATH=SITE python3 regions.py --images-only --tag new, >> iregions.csv
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import class_map, median_ms  # noqa: E402

REGION = 128


def region_map(shape, density, g, seed=0):
    foreground = class_map(shape, density, g, seed=seed) != 0
    coordinates = np.indices(shape, dtype=np.int32) // REGION
    region = 1 + coordinates.sum(axis=0) % 4
    return (region * foreground).astype(np.uint8)


def runs(cupy, values):
    """Runs of one nonzero value along x (the last axis)."""
    left = cupy.zeros_like(values)
    left[..., 1:] = values[..., :-1]
    return int(cupy.count_nonzero((values != 0) & (values != left)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--tag", default="", help="a first column, for A/B runs of two wheels")
    parser.add_argument("--volumes-only", action="store_true")
    parser.add_argument("--images-only", action="store_true", help="the 8192^2 maps and the batch alone")
    args = parser.parse_args()

    import cupy

    import ccl

    sync = cupy.cuda.Device().synchronize
    for density in (30, 60, 90):
        for g in (1, 4):
            cases = [
                ("8192^2", lambda: region_map((8192, 8192), density, g), (4, 8), False),
                ("256x512^2", lambda: np.stack([region_map((512, 512), density, g, seed=i) for i in range(256)]),
                 (8,), True),
                ("512^3", lambda: region_map((512, 512, 512), density, g), (6, 26), False),
            ]
            for name, values, connectivities, batch in cases:
                if args.volumes_only and name != "512^3" or args.images_only and name == "512^3":
                    continue
                values = cupy.asarray(values())
                binary = values != 0
                binary_runs, class_runs = runs(cupy, binary.astype(cupy.uint8)), runs(cupy, values)
                for c in connectivities:
                    b = median_ms(sync, lambda: ccl.label(binary, c, batch=batch), args.reps)
                    k = median_ms(sync, lambda: ccl.label_classes(values, c, batch=batch), args.reps)
                    print(f"{args.tag}{name},{density},{g},{c},{b:.4f},{k:.4f},{k / b:.3f},{binary_runs},{class_runs}",
                          flush=True)
                del values, binary


if __name__ == "__main__":
    main()
