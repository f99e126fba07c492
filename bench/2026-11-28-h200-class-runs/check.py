"""Holds `ccl.label_classes` of CuPy maps (the device: FLSL's runs for
images and batches) equal to that of the same numpy maps (the CPU labeler,
itself held to cc3d and a flood fill in the tests): labels and classes,
4 and 8 connectivity, every value size, densities 10-90 %, cells of 1, 2
and 4 pixels, one image and a batch (each image against its own host
labeling). Prints one line per failure and a summary.

  PYTHONPATH=<wheel's site> python3 check.py
"""

import sys
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))
from time_classes import class_map  # noqa: E402

import ccl  # noqa: E402


def same(host_map, device_map, connectivity, what):
    want_labels, want_classes = ccl.label_classes(host_map, connectivity)
    got_labels, got_classes = ccl.label_classes(device_map, connectivity)
    ok = np.array_equal(cupy.asnumpy(got_labels), want_labels) and np.array_equal(
        cupy.asnumpy(got_classes), want_classes)
    if not ok:
        print("FAIL", what, flush=True)
    return ok


def main():
    # `quick`: fewer maps, for the sanitizers.
    quick = sys.argv[1:] == ["quick"]
    failures = checks = 0
    shapes = ((333, 4100), (64, 64)) if quick else ((1000, 1031), (333, 4100), (64, 64), (1, 777), (513, 1))
    dtypes = ((np.uint8, 1), (np.uint64, 1 << 40)) if quick else (
        (np.uint8, 1), (np.uint16, 1000), (np.int32, -7), (np.uint64, 1 << 40))
    for shape in shapes:
        for density in (30, 90) if quick else (10, 30, 50, 70, 90):
            for g in (1, 4) if quick else (1, 2, 4):
                base = class_map(shape, density, g, seed=density + g)
                for dtype, scale in dtypes:
                    host = (base.astype(np.int64) * scale).astype(dtype)
                    device = cupy.asarray(host)
                    for connectivity in (4, 8):
                        checks += 1
                        failures += not same(host, device, connectivity, f"{shape} d={density} g={g} {dtype.__name__} c={connectivity}")
    for n, h, w in ((7, 100, 130), (5, 40, 700)) if quick else ((7, 100, 130), (5, 40, 700), (300, 32, 32)):
        for density in (30, 75):
            for g in (1, 3):
                host = class_map((n, h, w), density, g, seed=n + density)
                device = cupy.asarray(host)
                for connectivity in (4, 8):
                    checks += 1
                    labels, counts, classes = ccl.label_classes(device, connectivity, batch=True)
                    labels, counts, classes = cupy.asnumpy(labels), cupy.asnumpy(counts), cupy.asnumpy(classes)
                    first, ok = 0, True
                    for i in range(n):
                        want_labels, want_classes = ccl.label_classes(host[i], connectivity)
                        k = len(want_classes)
                        ok &= np.array_equal(labels[i], want_labels) and counts[i] == k
                        ok &= np.array_equal(classes[first:first + k], want_classes)
                        first += k
                    if not ok:
                        failures += 1
                        print("FAIL batch", (n, h, w), density, g, connectivity, flush=True)
    print(f"{checks - failures} of {checks} ok")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
