"""Times labeling and analysis in strips on one GPU against the same calls split over several GPUs
of the host (`ccl.label(a, c, devices=[0])` against `devices=[0, 1]`, the path of `ccl label
--devices`), on a host image and a host volume, and checks that the split labels and features
equal the one-GPU ones exactly, and the labels those of labeling the array whole on one GPU.

Run on a machine of several GPUs (CuPy measures the pinned bandwidth of each GPU, alone and all
at once):

    python3 scripts/scale/time_devices.py --devices 0,1 --out bench/DIR/devices.csv

Cases (by default): a 32768^2 image, d = 60 %, g = 1 (each pixel drawn alone), 4-connectivity;
a 1024^3 volume, d = 31 %, 6- and 26-connectivity; the input a numpy array, or with --input pinned
a page-locked one (cupyx.empty_pinned). Each case's labels go into page-locked memory
(`cupyx.empty_pinned`, so that the GPUs copy them there themselves and the host's own copies do
not bound the run; a numpy array is staged through pinned buffers), one array per device set.
Per call: the first call (which also makes the strip labeler and its pinned buffers) apart, then
the median and the least of --reps calls, wall time, host array in, labels (or the features)
out. The floor of a device set is the input's bytes up and the labels' down at the pinned
bandwidth those GPUs reach together, measured here. `whole-1gpu` is the same array already on
GPU 0 (a CuPy array) labeled there: no transfers, for scale.
"""

import argparse
import csv
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import ccl


def random_array(shape, density, seed):
    """A uint8 0/1 array, each pixel foreground with probability density/100 (numpy's PCG64),
    drawn in blocks of the first axis on all cores, each block from its own stream of `seed`
    (SeedSequence.spawn), so that no temporary of the whole array is made."""
    array = np.empty(shape, np.uint8)
    plane = int(np.prod(shape[1:]))
    block = max(1, (64 << 20) // plane)
    starts = range(0, shape[0], block)
    streams = np.random.SeedSequence(seed).spawn(len(starts))

    def draw(start, stream):
        part = array[start:start + block]
        rng = np.random.default_rng(stream)
        np.less(rng.integers(0, 100, part.shape, dtype=np.uint8), density, out=part)

    with ThreadPoolExecutor() as pool:
        list(pool.map(draw, starts, streams))
    return array


def pinned_bandwidth(cupy, devices, gib=1, reps=5):
    """(host->device, device->host) GB/s of `devices` copying at once, each its own 1 GiB pinned
    buffer on a thread of its own: the bytes of all over the wall time, median of `reps`."""
    n = gib << 30
    buffers = []
    for d in devices:
        with cupy.cuda.Device(d):
            buffers.append((d, cupy.cuda.alloc_pinned_memory(n), cupy.cuda.alloc(n)))
    runtime = cupy.cuda.runtime
    rates = []
    for kind in (runtime.memcpyHostToDevice, runtime.memcpyDeviceToHost):
        def copy(d, host, device):
            with cupy.cuda.Device(d):
                if kind == runtime.memcpyHostToDevice:
                    runtime.memcpy(device.ptr, host.ptr, n, kind)
                else:
                    runtime.memcpy(host.ptr, device.ptr, n, kind)
                runtime.deviceSynchronize()

        times = []
        for _ in range(reps):
            threads = [threading.Thread(target=copy, args=b) for b in buffers]
            start = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            times.append(time.perf_counter() - start)
        rates.append(n * len(devices) / statistics.median(times) / 1e9)
    return rates


def features_equal(a, b):
    """Whether two Features / VolumeFeatures hold the same values, field by field."""
    return all(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
               for x, y in zip(a, b))


def timed(call, reps):
    """(first call s, median s, least s, result of the last call)."""
    start = time.perf_counter()
    result = call()
    first = time.perf_counter() - start
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times), min(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", default="0,1", help="the GPUs to split over [0,1]")
    parser.add_argument("--image", type=int, default=32768, help="side of the image (0: none)")
    parser.add_argument("--image-density", type=int, default=60)
    parser.add_argument("--volume", type=int, default=1024, help="side of the volume (0: none)")
    parser.add_argument("--volume-density", type=int, default=31)
    parser.add_argument("--volume-connectivity", default="6,26")
    parser.add_argument("--max-gpu-memory", default=None, help="cap on each GPU (default: 80 %% of free)")
    parser.add_argument("--calls", default="label,analyze", help="label, analyze or both")
    parser.add_argument("--algorithm", default=None,
                        help="the variant that labels each strip (default: the preferred one)")
    parser.add_argument("--input", choices=["numpy", "pinned"], default="numpy",
                        help="the input array: numpy's (pageable; each strip is copied into a "
                             "pinned buffer, then up), or page-locked (cupyx.empty_pinned; each "
                             "strip goes up from it) [numpy]")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", help="CSV to write")
    args = parser.parse_args()
    devices = [int(d) for d in args.devices.split(",")]
    if len(devices) < 2:
        parser.error("--devices names the GPUs to split over: two or more, the first is the one alone")
    import cupy
    import cupyx

    sets = {"1gpu": devices[:1], f"{len(devices)}gpu": devices}
    bandwidth = {name: pinned_bandwidth(cupy, devs) for name, devs in sets.items()}
    for name, (up, down) in bandwidth.items():
        print(f"pinned bandwidth, {name} {sets[name]}: host->device {up:.1f} GB/s, "
              f"device->host {down:.1f} GB/s", flush=True)
    names = [cupy.cuda.runtime.getDeviceProperties(d)["name"].decode() for d in devices]
    print(f"devices: {names}", flush=True)

    cases = []
    if args.image:
        cases.append(("image", (args.image,) * 2, args.image_density, 4))
    if args.volume:
        for c in (int(c) for c in args.volume_connectivity.split(",")):
            cases.append(("volume", (args.volume,) * 3, args.volume_density, c))
    rows, failed = [], False
    for kind, shape, density, connectivity in cases:
        start = time.perf_counter()
        array = random_array(shape, density, seed=7)
        if args.input == "pinned":
            pinned = cupyx.empty_pinned(shape, np.uint8)
            pinned[...] = array
            array = pinned
        pixels = array.size
        print(f"{kind} {shape}: generated in {time.perf_counter() - start:.1f} s", flush=True)
        labels, features, seconds = {}, {}, {}

        def record(call, name, first, median, least, n, label_bytes):
            up, down = bandwidth.get(name, (float("nan"),) * 2)
            floor = pixels / (up * 1e9) + pixels * label_bytes / (down * 1e9)
            seconds[(call, name)] = median
            one = seconds.get((call, "1gpu"))
            row = dict(case=kind, shape="x".join(map(str, shape)), density=density,
                       connectivity=connectivity, input=args.input,
                       algorithm=args.algorithm or "default", call=call, devices=name,
                       max_gpu_memory=args.max_gpu_memory or "default", components=n,
                       first_call_ms=round(first * 1e3, 2), median_ms=round(median * 1e3, 2),
                       min_ms=round(least * 1e3, 2),
                       gpx_per_s=round(pixels / median / 1e9, 3),
                       speedup_over_1gpu=round(one / median, 3) if one else "",
                       floor_ms=round(floor * 1e3, 2) if label_bytes else "",
                       of_floor=round(floor / median, 3) if label_bytes else "")
            rows.append(row)
            print(", ".join(f"{k}={v}" for k, v in row.items()), flush=True)

        for name, devs in sets.items():
            out = cupyx.empty_pinned(shape, np.uint32)
            first, median, least, (_, n) = timed(
                lambda: ccl.label(array, connectivity, out=out, devices=devs,
                                  algorithm=args.algorithm,
                                  max_gpu_memory=args.max_gpu_memory), args.reps)
            labels[name] = (out, n)
            record("label", name, first, median, least, n, 4)
            if "analyze" in args.calls:
                first, median, least, stats = timed(
                    lambda: ccl.analyze(array, connectivity, devices=devs,
                                        algorithm=args.algorithm,
                                        max_gpu_memory=args.max_gpu_memory), args.reps)
                features[name] = stats
                record("analyze", name, first, median, least, len(stats.area), 0)
        # Already on GPU 0, labeled whole there.
        with cupy.cuda.Device(devices[0]):
            on_device = cupy.asarray(array)

            def whole():
                result = ccl.label(on_device, connectivity)
                cupy.cuda.Device().synchronize()
                return result

            first, median, least, (whole_labels, n_whole) = timed(whole, args.reps)
            record("label", "whole-1gpu", first, median, least, n_whole, 0)
            whole_labels = cupy.asnumpy(whole_labels)
            del on_device
            cupy.get_default_memory_pool().free_all_blocks()
        (one, n_one), split_name = labels["1gpu"], list(sets)[-1]
        (split, n_split) = labels[split_name]
        checks = {
            f"{split_name} labels == 1gpu labels": n_split == n_one and np.array_equal(split, one),
            "1gpu labels == whole-1gpu labels": n_one == n_whole and np.array_equal(one, whole_labels),
        }
        if features:
            checks[f"{split_name} features == 1gpu features"] = features_equal(
                features[split_name], features["1gpu"])
            checks["features' count == labels' count"] = len(features["1gpu"].area) == n_one
        for check, ok in checks.items():
            print(f"{kind} {shape} c={connectivity}: {check}: {'ok' if ok else 'FAILED'}",
                  flush=True)
            failed |= not ok
        del array, labels, features, one, split, whole_labels

    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
