"""Compares a labeling's clean-up on the GPU (flsl-cd's votes, whose ranks
the last pass now reads) with the CPU's on the same inputs: `ccl.label`
and `ccl.keep` of CuPy images and batches with every kind of filter (the
largest alone, the k largest, sizes, extents, and mixes), 4- and
8-connectivity, against the same calls on the NumPy copy. Small inputs by
default (for the sanitizers), --size large for 2048^2 and 16 x 512^2.
Prints one line per mismatch and a final count; exits 1 on any mismatch.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_filters import random_array  # noqa: E402

FILTERS = [
    {"largest": 1},
    {"largest": 3},
    {"min_size": 5},
    {"max_size": 20},
    {"min_extent": (2, 3)},
    {"max_extent": (40, 40), "largest": 2},
    {"min_size": 3, "largest": 2},
]


def same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and bool((a == b).all())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=["small", "large"], default="small")
    parser.add_argument("--densities", default="10,40,60,90")
    parser.add_argument("--granularities", default="1,4")
    args = parser.parse_args()
    import cupy as cp

    import ccl

    image_shape, batch_shape = {
        "small": ((300, 257), (3, 120, 97)),
        "large": ((2048, 2048), (16, 512, 512)),
    }[args.size]
    checked = bad = 0
    for density in map(int, args.densities.split(",")):
        for g in map(int, args.granularities.split(",")):
            for shape, batch in ((image_shape, False), (batch_shape, True)):
                host = random_array(shape, density, g)
                device = cp.asarray(host)
                for connectivity in (4, 8):
                    for kwargs in FILTERS:
                        case = f"{shape} d={density} g={g} c={connectivity} {kwargs}"
                        cpu_labels, cpu_n = ccl.label(host, connectivity, batch=batch, **kwargs)
                        gpu_labels, gpu_n = ccl.label(device, connectivity, batch=batch, **kwargs)
                        checked += 1
                        if not same(cp.asnumpy(gpu_labels), cpu_labels) or not same(
                            np.asarray(cp.asnumpy(gpu_n)), np.asarray(cpu_n)
                        ):
                            bad += 1
                            print(f"MISMATCH label {case}", flush=True)
                        cpu_mask = ccl.keep(host, connectivity, batch=batch, **kwargs)
                        gpu_mask = ccl.keep(device, connectivity, batch=batch, **kwargs)
                        checked += 1
                        if not same(cp.asnumpy(gpu_mask), cpu_mask):
                            bad += 1
                            print(f"MISMATCH keep {case}", flush=True)
    print(f"{'ok' if bad == 0 else 'FAILED'}: {checked - bad} of {checked} calls agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
