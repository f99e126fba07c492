"""Batches and volumes labeled on the GPU (CuPy) against the same arrays
labeled on the host (numpy, `cpu-rle` and the CPU class labeler): binary
batches, class-map batches and volumes at densities whose bands of 16 rows
take the band unions' shared forest (narrow rows) and the table's (rows of
2048 pixels at g = 1), every connectivity. Exits 1 on the first mismatch.

  python3 check.py --size small    # under compute-sanitizer
  python3 check.py --size large    # 256 masks of 512^2, 128^3 volumes
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402
from time_classes import class_map  # noqa: E402


def same(name, device, host):
    import cupy

    for d, h in zip(device, host):
        d = cupy.asnumpy(d) if hasattr(d, "__cuda_array_interface__") else np.asarray(d)
        if d.shape != np.shape(h) or not np.array_equal(d, np.asarray(h)):
            print(f"MISMATCH {name}", flush=True)
            sys.exit(1)
    print(f"ok {name}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", choices=["small", "large"], default="small")
    args = parser.parse_args()
    import cupy

    import ccl

    if args.size == "small":
        batches = [(8, 96, 40), (3, 2048, 40)]
        volume = (24, 40, 96)
    else:
        batches = [(256, 512, 512), (4, 2048, 512)]
        volume = (128, 128, 128)
    for n, w, h in batches:
        for g in (1, 4):
            for d in (10, 30, 45, 60, 75, 90):
                images = np.stack([random_image(w, h, d, g, 7 * i + d) for i in range(n)])
                device_images = cupy.asarray(images)
                for c in (4, 8):
                    name = f"batch {n}x{w}x{h} g={g} d={d} c={c}"
                    same(name, ccl.label(device_images, c, batch=True), ccl.label(images, c, batch=True))
                if d in (30, 60, 90):
                    maps = np.stack([class_map((h, w), d, g, seed=i + d) for i in range(n)])
                    device_maps = cupy.asarray(maps)
                    for c in (4, 8):
                        name = f"class batch {n}x{w}x{h} g={g} d={d} c={c}"
                        same(name, ccl.label_classes(device_maps, c, batch=True),
                             ccl.label_classes(maps, c, batch=True))
    for g in (1, 4):
        for d in (30, 60, 90):
            vol = np.ascontiguousarray(np.stack([random_image(volume[2], volume[1], d, g, 11 * z + d)
                                                 for z in range(volume[0])]))
            device_vol = cupy.asarray(vol)
            for c in (6, 18, 26):
                same(f"volume {volume} g={g} d={d} c={c}", ccl.label(device_vol, c), ccl.label(vol, c))


if __name__ == "__main__":
    main()
