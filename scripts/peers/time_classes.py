"""Times the labeling of class maps ("multilabel") from Python on the GPU:
`ccl.label_classes` of a map of 4 classes beside `ccl.label` of the binary
image of the same foreground (the issue's target: at most 1.5x), beside what
a CuPy user writes today (one `cupyx.scipy.ndimage.label` per class, the
merge of their labels left out), and, on the host, cc3d's multilabel
`connected_components` beside `ccl.label_classes` of a numpy map.

Maps are docs/benchmark.md's random images with classes: one draw per g*g
(g*g*g) cell from NumPy's RandomState (seed 0); a cell is foreground with
probability density / 100 and then of class 1..4 by a second draw. Inputs:
an 8192^2 CuPy map (4- and 8-connectivity), a 512^3 CuPy map
(26-connectivity), a batch of 256 maps of 512^2 (8-connectivity, one call),
and a 2048^2 numpy map on the host. Each call is timed from just before it
to the device being idle; one warm-up, then --reps runs, the median kept.
The device labels are compared with the host's on the 2048^2 map.

  scripts/peers/time-classes --out classes.csv
"""

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

CLASSES = 4


def class_map(shape, density, g, seed=0):
    cells = [-(-n // g) for n in shape]
    rng = np.random.RandomState(seed)
    u = rng.randint(0, 2**32, size=int(np.prod(cells)), dtype=np.uint32)
    on = u.astype(np.uint64) < density * 2**32 // 100
    values = (rng.randint(0, CLASSES, size=on.size) + 1) * on
    values = values.reshape(cells).astype(np.uint8)
    for axis in range(len(shape)):
        values = values.repeat(g, axis)
    return np.ascontiguousarray(values[tuple(slice(0, n) for n in shape)])


def median_ms(sync, run, reps):
    run()
    sync()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        sync()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--densities", default="30,60,90")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("classes.csv"))
    args = parser.parse_args()

    import cc3d
    import cupy
    import cupyx.scipy.ndimage as ndimage

    import ccl

    sync = cupy.cuda.Device().synchronize
    rows = ["input,density,granularity,connectivity,call,ms,ratio_to_binary"]

    def report(name, density, g, connectivity, call, ms, binary_ms):
        rows.append(f"{name},{density},{g},{connectivity},{call},{ms:.4f},{ms / binary_ms:.3f}")
        print(f"{name:>14} d={density:>3} g={g:>2} c={connectivity:>2} {call:<30} {ms:9.3f} ms "
              f"({ms / binary_ms:.2f}x binary)", flush=True)  # fmt: skip

    def per_class_cupyx(values, structure):
        for c in range(1, CLASSES + 1):
            ndimage.label(values == c, structure)

    for density in [int(d) for d in args.densities.split(",")]:
        for g in (1, 4):
            for name, shape, connectivities in (("8192^2 cupy", (8192, 8192), (4, 8)),
                                                ("512^3 cupy", (512, 512, 512), (26,))):  # fmt: skip
                values = cupy.asarray(class_map(shape, density, g))
                binary = values != 0
                for connectivity in connectivities:
                    binary_ms = median_ms(sync, lambda: ccl.label(binary, connectivity), args.reps)
                    report(name, density, g, connectivity, "label (binary)", binary_ms, binary_ms)
                    ms = median_ms(sync, lambda: ccl.label_classes(values, connectivity), args.reps)
                    report(name, density, g, connectivity, "label_classes", ms, binary_ms)
                    rank = {4: 1, 8: 2, 26: 3}[connectivity]
                    structure = ndimage.generate_binary_structure(len(shape), rank)
                    ms = median_ms(sync, lambda: per_class_cupyx(values, structure), args.reps)
                    report(name, density, g, connectivity, "cupyx label per class", ms, binary_ms)
                del values, binary
            batch = cupy.asarray(np.stack([class_map((512, 512), density, g, seed=i)
                                           for i in range(256)]))  # fmt: skip
            binary = batch != 0
            binary_ms = median_ms(sync, lambda: ccl.label(binary, 8, batch=True), args.reps)
            report("256x512^2 cupy", density, g, 8, "label batch (binary)", binary_ms, binary_ms)
            ms = median_ms(sync, lambda: ccl.label_classes(batch, 8, batch=True), args.reps)
            report("256x512^2 cupy", density, g, 8, "label_classes batch", ms, binary_ms)

            # The host: cc3d (one thread) and ccl's CPU labeler of class maps.
            host = class_map((2048, 2048), density, g)
            binary_ms = median_ms(lambda: None, lambda: ccl.label(host != 0, 8), 3)
            report("2048^2 numpy", density, g, 8, "label (binary)", binary_ms, binary_ms)
            ms = median_ms(lambda: None, lambda: ccl.label_classes(host, 8), 3)
            report("2048^2 numpy", density, g, 8, "label_classes", ms, binary_ms)
            ms = median_ms(lambda: None, lambda: cc3d.connected_components(host, connectivity=8), 3)
            report("2048^2 numpy", density, g, 8, "cc3d connected_components", ms, binary_ms)
            on_host, _ = ccl.label_classes(host, 8)
            on_device, _ = ccl.label_classes(cupy.asarray(host), 8)
            if not np.array_equal(on_host, cupy.asnumpy(on_device)):
                raise SystemExit(f"2048^2 d={density} g={g}: device and host labels differ")
    args.out.write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
