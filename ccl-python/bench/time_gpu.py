#!/usr/bin/env python3
"""Time `ccl` on CuPy arrays against what a CuPy user writes today (cupyx.scipy.ndimage).

For random square uint8 images on the GPU (cells of g x g pixels set with probability d %),
for each connectivity, it times with CUDA events on the current stream (the median of --reps
timed calls, after 2 warm-up calls):

  ccl.label                 ccl.label(x)                               labels + count
  ccl.cc_with_stats         ccl.connected_components_with_stats(x)     + OpenCV-style stats
  ccl.analyze               ccl.analyze(x)                             features only
  cupyx.label               cupyx.scipy.ndimage.label(x, structure)    labels + count
  cupyx.label+stats         cupyx label, then, over the foreground pixels, per component:
                            area (bincount), sum of x and of y (bincount weighted by the
                            coordinates), bounding box (cupyx.scatter_min / scatter_max of
                            the coordinates), centroid (sum / area): what ccl.analyze gives

and prints a markdown table (ms and Gpx/s = pixels / time); --csv writes one row per
measurement (size,density,granularity,connectivity,method,ms). --check compares ccl's results
with cupyx's first (the same partition, count and features; cupyx does not promise
raster-order numbering, so labels are compared as partitions).

Example (on the GPU machine):

    python bench/time_gpu.py --size 8192 --densities 10,50,90 --granularities 1,4,16 \
        --reps 20 --csv /tmp/time_gpu.csv --check
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time

WARMUPS = 2


def parse_ints(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    if not values:
        raise argparse.ArgumentTypeError("expected at least one value")
    return values


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=8192, help="image side in pixels (square)")
    parser.add_argument(
        "--densities", type=parse_ints, default=[10, 50, 90], help="foreground %% list"
    )
    parser.add_argument(
        "--granularities", type=parse_ints, default=[1, 4, 16], help="cell sides list"
    )
    parser.add_argument(
        "--connectivities", type=parse_ints, default=[4, 8], help="4 and/or 8"
    )
    parser.add_argument("--reps", type=int, default=20, help="timed calls per measurement")
    parser.add_argument("--seed", type=int, default=1, help="random seed of the images")
    parser.add_argument("--algorithm", default=None, help="algorithm= passed to the ccl calls")
    parser.add_argument("--csv", default=None, help="write the measurements to this CSV file")
    parser.add_argument(
        "--check", action="store_true", help="compare ccl with cupyx before timing"
    )
    parser.add_argument(
        "--methods",
        default=None,
        help="comma-separated subset of: " + ", ".join(METHOD_NAMES),
    )
    args = parser.parse_args(argv)
    if args.size < 1 or args.reps < 1:
        parser.error("--size and --reps must be positive")
    for d in args.densities:
        if not 0 <= d <= 100:
            parser.error(f"density {d} is not in 0..100")
    for g in args.granularities:
        if g < 1:
            parser.error(f"granularity {g} must be positive")
    for c in args.connectivities:
        if c not in (4, 8):
            parser.error(f"connectivity {c} is not 4 or 8")
    if args.methods:
        args.methods = [m.strip() for m in args.methods.split(",") if m.strip()]
        unknown = [m for m in args.methods if m not in METHOD_NAMES]
        if unknown:
            parser.error(f"unknown methods {unknown}; known: {', '.join(METHOD_NAMES)}")
    else:
        args.methods = list(METHOD_NAMES)
    return args


METHOD_NAMES = (
    "ccl.label",
    "ccl.cc_with_stats",
    "ccl.analyze",
    "cupyx.label",
    "cupyx.label+stats",
)


def import_gpu_stack():
    try:
        import cupy
        import cupyx
        import cupyx.scipy.ndimage as cupy_ndimage
    except ImportError as error:
        sys.exit(
            f"time_gpu.py needs CuPy (e.g. pip install cupy-cuda13x) and a CUDA GPU: {error}"
        )
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # no driver
        sys.exit(f"time_gpu.py needs a CUDA GPU; CuPy says: {error}")
    if count < 1:
        sys.exit("time_gpu.py needs a CUDA GPU; CuPy sees none")
    try:
        import ccl
    except ImportError as error:
        sys.exit(f"cannot import ccl (build it with maturin first): {error}")
    return cupy, cupyx, cupy_ndimage, ccl


def random_image(cp, size: int, density: int, granularity: int, seed: int):
    """A C-contiguous uint8 (size, size) CuPy image of g x g cells set with probability d %."""
    g = granularity
    cells_side = (size + g - 1) // g
    rng = cp.random.default_rng(seed)
    cells = rng.random((cells_side, cells_side), dtype=cp.float32) < (density / 100.0)
    image = cp.repeat(cp.repeat(cells, g, axis=0), g, axis=1)[:size, :size]
    return cp.ascontiguousarray(image.astype(cp.uint8))


def structure_for(connectivity: int):
    import numpy as np

    if connectivity == 4:
        return np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)
    return np.ones((3, 3), dtype=bool)


def cupyx_label_and_stats(cp, cupyx, cupy_ndimage, image, structure):
    """cupyx labels plus the features ccl.analyze gives, as a CuPy user would compute them.

    The foreground pixels are gathered first (cupy.flatnonzero), so that the background's
    millions of pixels do not all hit bin 0 of the atomics below. Then, per component k in
    1..n: area = bincount(labels); sum_x / sum_y = bincount weighted by the pixels' x / y;
    x_min / x_max / y_min / y_max = cupyx.scatter_min / scatter_max of the coordinates into
    per-label arrays (atomics, one pass each); centroid = sums / area.
    """
    labels, n = cupy_ndimage.label(image, structure)
    h, w = labels.shape
    flat = labels.ravel()
    index = cp.flatnonzero(flat)
    fg_labels = flat[index]
    xs = (index % w).astype(cp.int32)
    ys = (index // w).astype(cp.int32)
    area = cp.bincount(fg_labels, minlength=n + 1)
    sum_x = cp.bincount(fg_labels, weights=xs, minlength=n + 1)
    sum_y = cp.bincount(fg_labels, weights=ys, minlength=n + 1)
    big = max(h, w)
    x_min = cp.full(n + 1, big, dtype=cp.int32)
    y_min = cp.full(n + 1, big, dtype=cp.int32)
    x_max = cp.full(n + 1, -1, dtype=cp.int32)
    y_max = cp.full(n + 1, -1, dtype=cp.int32)
    cupyx.scatter_min(x_min, fg_labels, xs)
    cupyx.scatter_min(y_min, fg_labels, ys)
    cupyx.scatter_max(x_max, fg_labels, xs)
    cupyx.scatter_max(y_max, fg_labels, ys)
    area_f = area[1:].astype(cp.float64)
    centroids = cp.stack([sum_x[1:] / area_f, sum_y[1:] / area_f], axis=1)
    return {
        "labels": labels,
        "n": int(n),
        "area": area[1:],
        "x_min": x_min[1:],
        "y_min": y_min[1:],
        "x_max": x_max[1:],
        "y_max": y_max[1:],
        "sum_x": sum_x[1:],
        "sum_y": sum_y[1:],
        "centroids": centroids,
    }


def same_partition(cp, a, b) -> tuple[bool, str]:
    """Two labelings are one partition iff the (a, b) label pairs map one to one."""
    a = a.ravel().astype(cp.int64)
    b = b.ravel().astype(cp.int64)
    if not bool(cp.array_equal(a == 0, b == 0)):
        return False, "foreground differs"
    pairs = cp.unique(a * (int(b.max()) + 1) + b).size
    na, nb = cp.unique(a).size, cp.unique(b).size
    if not (pairs == na == nb):
        return False, f"{pairs} label pairs for {na} and {nb} labels"
    return True, ""


def check(cp, cupyx, cupy_ndimage, ccl, image, connectivity, algorithm) -> list[str]:
    """Compare ccl with cupyx on one image; returns the problems found."""
    problems = []
    ref = cupyx_label_and_stats(cp, cupyx, cupy_ndimage, image, structure_for(connectivity))
    labels, n = ccl.label(image, connectivity, algorithm=algorithm)
    if n != ref["n"]:
        problems.append(f"label: n {n} != cupyx {ref['n']}")
    ok, why = same_partition(cp, labels, ref["labels"])
    if not ok:
        problems.append(f"label: not cupyx's partition: {why}")
    if not problems:
        # Map each cupyx label to ccl's (one to one, checked above) to compare the features.
        mapping = cp.zeros(ref["n"] + 1, dtype=cp.int64)
        flat_ref = ref["labels"].ravel()
        mapping[flat_ref] = labels.ravel().astype(cp.int64)
        order = mapping[1:] - 1  # index in ccl's arrays of each cupyx component
        features = ccl.analyze(image, connectivity, algorithm=algorithm)
        for name in ("area", "x_min", "y_min", "x_max", "y_max", "sum_x", "sum_y"):
            mine = getattr(features, name).astype(cp.int64)[order]
            theirs = ref[name].astype(cp.int64)
            if not bool(cp.array_equal(mine, theirs)):
                problems.append(f"analyze: {name} differs from cupyx's")
        if not bool(cp.array_equal(features.centroids[order], ref["centroids"])):
            problems.append("analyze: centroids differ from cupyx's")
        n_cv, labels_cv, stats, centroids = ccl.connected_components_with_stats(
            image, connectivity, algorithm=algorithm
        )
        if n_cv != n + 1 or not bool(cp.array_equal(labels_cv, labels.astype(cp.int32))):
            problems.append("connected_components_with_stats: labels differ from label's")
        if not bool(cp.array_equal(stats[1:, 4].astype(cp.int64), features.area.astype(cp.int64))):
            problems.append("connected_components_with_stats: areas differ from analyze's")
        if not bool(cp.array_equal(centroids[1:], features.centroids)):
            problems.append("connected_components_with_stats: centroids differ from analyze's")
    return problems


def time_method(cp, fn, reps: int) -> float:
    """Median milliseconds of `reps` calls, timed with CUDA events on the current stream."""
    stream = cp.cuda.get_current_stream()
    for _ in range(WARMUPS):
        fn()
    stream.synchronize()
    times = []
    for _ in range(reps):
        start = cp.cuda.Event()
        end = cp.cuda.Event()
        start.record(stream)
        out = fn()
        end.record(stream)
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
        del out
    return statistics.median(times)


def main(argv=None) -> int:
    args = parse_args(argv)
    cp, cupyx, cupy_ndimage, ccl = import_gpu_stack()
    device = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(device.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(
        f"# ccl vs cupyx.scipy.ndimage on {name}, {args.size}x{args.size} uint8, median of "
        f"{args.reps} after {WARMUPS} warm-ups, algorithm={args.algorithm or 'default'}"
    )
    print()

    alg = args.algorithm
    rows = []
    failures = []
    pixels = args.size * args.size
    print("| density | g | conn | method | ms | Gpx/s |")
    print("| ---: | ---: | ---: | :--- | ---: | ---: |")
    for density in args.densities:
        for granularity in args.granularities:
            image = random_image(cp, args.size, density, granularity, args.seed)
            for connectivity in args.connectivities:
                structure = structure_for(connectivity)
                if args.check:
                    problems = check(cp, cupyx, cupy_ndimage, ccl, image, connectivity, alg)
                    for problem in problems:
                        failures.append(f"d={density} g={granularity} c={connectivity}: {problem}")
                methods = {
                    "ccl.label": lambda: ccl.label(image, connectivity, algorithm=alg),
                    "ccl.cc_with_stats": lambda: ccl.connected_components_with_stats(
                        image, connectivity, algorithm=alg
                    ),
                    "ccl.analyze": lambda: ccl.analyze(image, connectivity, algorithm=alg),
                    "cupyx.label": lambda: cupy_ndimage.label(image, structure),
                    "cupyx.label+stats": lambda: cupyx_label_and_stats(
                        cp, cupyx, cupy_ndimage, image, structure
                    ),
                }
                for method in args.methods:
                    ms = time_method(cp, methods[method], args.reps)
                    rows.append((args.size, density, granularity, connectivity, method, ms))
                    gpx = pixels / (ms * 1e-3) / 1e9
                    print(f"| {density} | {granularity} | {connectivity} | {method} | "
                          f"{ms:.3f} | {gpx:.2f} |", flush=True)
            del image
            cp.get_default_memory_pool().free_all_blocks()

    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["size", "density", "granularity", "connectivity", "method", "ms"])
            for size, density, granularity, connectivity, method, ms in rows:
                writer.writerow([size, density, granularity, connectivity, method, f"{ms:.4f}"])
        print(f"\nwrote {args.csv}")
    if args.check:
        if failures:
            print("\nCHECK FAILED:\n" + "\n".join(failures), file=sys.stderr)
            return 1
        print("\ncheck: ccl agrees with cupyx (partition, count, features) on every image")
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main()
    print(f"# {time.perf_counter() - started:.1f} s", file=sys.stderr)
    sys.exit(status)
