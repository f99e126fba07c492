"""Times the clean-up after labeling from Python on the GPU, labeling
included: MONAI's keep-largest (`ccl.keep(x, largest=1)`), cc3d's
`largest_k` and `dust` (`ccl.label(x, largest=k)`, `ccl.label(x,
min_size=s)`) beside the plain `ccl.label(x)` of the same input, and beside
what a user writes today with CuPy (`cupyx.scipy.ndimage.label`, then
`bincount`, `argmax` and a comparison: the mask step MONAI timed). Inputs:
a 192^3 CUDA torch tensor (MONAI's size) and an 8192^2 CuPy image at
several densities, and a batch of 256 masks of 512^2 (keep-largest per
mask).

Images are docs/benchmark.md's random images (NumPy's RandomState, one
draw per g*g cell; seed 0). Each call is timed from just before it to the
device being idle; one warm-up, then --reps runs, the median kept. The
kept masks of ccl and of the CuPy baseline are compared.

  scripts/peers/time-filters --out filters.csv
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def random_array(shape, density, g, seed=0):
    cells = [-(-n // g) for n in shape]
    u = np.random.RandomState(seed).randint(0, 2**32, size=int(np.prod(cells)), dtype=np.uint32)
    on = (u.astype(np.uint64) < density * 2**32 // 100).reshape(cells)
    for axis in range(len(shape)):
        on = on.repeat(g, axis)
    return np.ascontiguousarray(on[tuple(slice(0, n) for n in shape)].astype(np.uint8))


def median_ms(sync, run, reps):
    result = run()
    sync()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = run()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--densities", default="10,30,50,60,75,90")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("filters.csv"))
    args = parser.parse_args()

    import cupy
    import cupyx.scipy.ndimage as ndimage
    import torch

    import ccl

    sync = cupy.cuda.Device().synchronize
    rows = ["input,density,granularity,call,ms,ratio_to_label"]

    def cupy_keep_largest(x, structure):
        labels, n = ndimage.label(x, structure)
        if n == 0:
            return labels != 0
        areas = cupy.bincount(labels.ravel())
        areas[0] = 0
        return labels == cupy.argmax(areas)

    def report(name, density, g, call, ms, label_ms):
        rows.append(f"{name},{density},{g},{call},{ms:.4f},{ms / label_ms:.3f}")
        print(f"{name:>16} d={density:>3} g={g:>2} {call:<28} {ms:8.3f} ms "
              f"({ms / label_ms:.2f}x label)", flush=True)  # fmt: skip

    for density in [int(d) for d in args.densities.split(",")]:
        for g in (1, 4):
            # MONAI's case: a 192^3 CUDA tensor, 26-connectivity.
            volume = torch.from_numpy(random_array((192, 192, 192), density, g)).cuda()
            tsync = torch.cuda.synchronize
            label_ms, _ = median_ms(tsync, lambda: ccl.label(volume, 26), args.reps)
            report("192^3 torch", density, g, "label", label_ms, label_ms)
            ms, kept = median_ms(tsync, lambda: ccl.keep(volume, 26, largest=1), args.reps)
            report("192^3 torch", density, g, "keep largest=1", ms, label_ms)
            ms, _ = median_ms(tsync, lambda: ccl.label(volume, 26, largest=3), args.reps)
            report("192^3 torch", density, g, "label largest=3", ms, label_ms)
            ms, _ = median_ms(tsync, lambda: ccl.label(volume, 26, min_size=50), args.reps)
            report("192^3 torch", density, g, "label min_size=50", ms, label_ms)
            cube = cupy.asarray(volume)
            structure = cupy.ones((3, 3, 3), bool)
            ms, theirs = median_ms(sync, lambda: cupy_keep_largest(cube, structure), args.reps)
            report("192^3 torch", density, g, "cupyx label+argmax mask", ms, label_ms)
            if not bool((cupy.asarray(kept) == theirs).all()):
                areas = np.bincount(ccl.label(volume.cpu().numpy(), 26)[0].ravel())[1:]
                if len(areas) and (areas == areas.max()).sum() == 1:
                    sys.exit(f"192^3 d={density} g={g}: ccl and cupyx keep different components")

            # One 8192^2 image, 8-connectivity.
            image = cupy.asarray(random_array((8192, 8192), density, g))
            label_ms, _ = median_ms(sync, lambda: ccl.label(image, 8), args.reps)
            report("8192^2 cupy", density, g, "label", label_ms, label_ms)
            ms, _ = median_ms(sync, lambda: ccl.keep(image, 8, largest=1), args.reps)
            report("8192^2 cupy", density, g, "keep largest=1", ms, label_ms)
            ms, _ = median_ms(sync, lambda: ccl.label(image, 8, largest=1), args.reps)
            report("8192^2 cupy", density, g, "label largest=1", ms, label_ms)
            ms, _ = median_ms(sync, lambda: ccl.label(image, 8, min_size=50), args.reps)
            report("8192^2 cupy", density, g, "label min_size=50", ms, label_ms)
            structure = cupy.ones((3, 3), bool)
            ms, _ = median_ms(sync, lambda: cupy_keep_largest(image, structure), args.reps)
            report("8192^2 cupy", density, g, "cupyx label+argmax mask", ms, label_ms)

            # A batch of 256 masks of 512^2: keep-largest per mask.
            batch = cupy.asarray(np.stack([random_array((512, 512), density, g, seed=i)
                                           for i in range(256)]))  # fmt: skip
            label_ms, _ = median_ms(sync, lambda: ccl.label(batch, 8, batch=True), args.reps)
            report("256x512^2 cupy", density, g, "label batch", label_ms, label_ms)
            ms, _ = median_ms(sync, lambda: ccl.keep(batch, 8, batch=True, largest=1), args.reps)
            report("256x512^2 cupy", density, g, "keep batch largest=1", ms, label_ms)
    args.out.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
