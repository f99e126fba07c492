"""Class volumes labeled on the GPU (CuPy, `ccl.label_classes`) against the
same maps labeled on the host (numpy, the CPU class labeler): maps of 4
classes drawn per g*g*g cell (time_classes.py's), 6-, 18- and
26-connectivity, slices of rows two a warp (up to 512 values) and a warp
each in FLSL's walk, values of 1, 2, 4 and 8 bytes; and the same
foreground of classes in regions (the class-region-maps folder's
regions.py: long runs of one value). Labels and classes must be equal (the
small size: 1- and 8-byte values). Exits 1 on the first mismatch.

  python3 check.py --size small    # under compute-sanitizer
  python3 check.py --size large
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import class_map  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-11-29-h200-class-region-maps"))

from regions import region_map  # noqa: E402


def check(cupy, ccl, base, dtype, shape, g, d):
    """The maps of `base` (classes 0..4) as `dtype` values, in 6, 18 and 26."""
    values = (base.astype(np.int64) * 1000 + (base != 0)).astype(dtype)
    device = cupy.asarray(values)
    for c in (6, 18, 26):
        got_labels, got_classes = ccl.label_classes(device, c)
        want_labels, want_classes = ccl.label_classes(values, c)
        same = np.array_equal(cupy.asnumpy(got_labels), want_labels) and np.array_equal(
            cupy.asnumpy(got_classes), want_classes)
        if not same:
            print(f"MISMATCH class volume {shape} {np.dtype(dtype).name} g={g} d={d} c={c}", flush=True)
            sys.exit(1)
    return 3


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=["small", "large"], default="small")
    args = parser.parse_args()
    import cupy

    import ccl

    if args.size == "small":
        shapes = [(12, 40, 96), (5, 20, 600)]
        dtypes = (np.uint8, np.uint64)
    else:
        shapes = [(128, 128, 128), (40, 64, 600), (64, 200, 256)]
        dtypes = (np.uint8, np.uint16, np.int32, np.uint64)
    checked = 0
    for shape in shapes:
        for g in (1, 4):
            for d in (30, 60, 90):
                for base in (class_map(shape, d, g, seed=d + g), region_map(shape, d, g, seed=d + g)):
                    for dtype in dtypes:
                        checked += check(cupy, ccl, base, dtype, shape, g, d)
    print(f"ok {checked} class volumes", flush=True)


if __name__ == "__main__":
    main()
