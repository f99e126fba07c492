"""Times labeling in strips streamed through the GPU (`ccl.label(a, c, max_gpu_memory=...)`, the
path of `ccl label --max-gpu-memory`) on a host image past 2**32 pixels, against the transfer
floor: the image's bytes up and its labels' bytes down at the host<->device bandwidth measured
here with pinned buffers. Also checks the strips against labeling whole where both fit.

Run on the GPU machine (CuPy measures the bandwidth and the device memory in use):

    python3 scripts/scale/time_strips.py --size 65536 --max-gpu-memory 8GiB --out bench/DIR/strips.csv

Per case it prints and writes: the wall time of the call (median of --reps into one label array;
the first call, which also makes the labeler and its pinned buffers, separately; and the median
of calls that each return a new array, whose pages fault as the labels arrive), Gpx/s, the floor in ms and the share of it
reached, and the peak device memory the process held beyond what it held before (polled).
At --check-size the strips are compared with the labels of the whole image on the device (a
CuPy array: a host array that large is itself labeled in strips).
The 65536^2 case runs twice: into a numpy array (pageable: staged through pinned buffers) and
into page-locked memory from `cupyx.empty_pinned` (the GPU copies the labels there itself).
"""

import argparse
import csv
import statistics
import sys
import threading
import time

import numpy as np

import ccl


def pinned_bandwidth(cupy, gib=1, reps=5):
    """(host->device, device->host) GB/s of one pinned buffer of `gib` GiB, median of `reps`."""
    n = gib << 30
    host = cupy.cuda.alloc_pinned_memory(n)
    device = cupy.cuda.alloc(n)
    runtime = cupy.cuda.runtime
    rates = []
    for kind in (runtime.memcpyHostToDevice, runtime.memcpyDeviceToHost):
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            if kind == runtime.memcpyHostToDevice:
                runtime.memcpy(device.ptr, host.ptr, n, kind)
            else:
                runtime.memcpy(host.ptr, device.ptr, n, kind)
            runtime.deviceSynchronize()
            times.append(time.perf_counter() - start)
        rates.append(n / statistics.median(times) / 1e9)
    return rates


def used_memory(cupy):
    """Bytes of the device's memory in use, by every process."""
    free, total = cupy.cuda.runtime.memGetInfo()
    return total - free


class PeakMemory:
    """Polls the device's used memory every 5 ms on a thread: the peak above `baseline` (what
    was in use before the script labeled anything)."""

    def __init__(self, cupy, baseline):
        self.cupy, self.stop, self.peak, self.baseline = cupy, threading.Event(), 0, baseline

    def __enter__(self):
        def poll():
            while not self.stop.is_set():
                self.peak = max(self.peak, used_memory(self.cupy) - self.baseline)
                time.sleep(0.005)

        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def random_image(side, density, seed):
    """A side x side uint8 0/1 image, each pixel foreground with probability density/100,
    generated in row blocks (numpy's PCG64, not the sweep's MT19937: at this size only the
    density matters)."""
    image = np.empty((side, side), np.uint8)
    rng = np.random.default_rng(seed)
    block = max(1, (256 << 20) // side)
    for y in range(0, side, block):
        rows = image[y:y + block]
        np.less(rng.integers(0, 100, rows.shape, dtype=np.uint8), density, out=rows)
    return image


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=65536, help="side of the square image")
    parser.add_argument("--check-size", type=int, default=32768,
                        help="side at which strips are checked against labeling whole (0: none)")
    parser.add_argument("--density", type=int, default=60)
    parser.add_argument("--connectivity", type=int, default=4)
    parser.add_argument("--max-gpu-memory", default="8GiB")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", help="CSV to write")
    args = parser.parse_args()
    import cupy

    h2d, d2h = pinned_bandwidth(cupy)
    baseline = used_memory(cupy)
    print(f"pinned bandwidth: host->device {h2d:.1f} GB/s, device->host {d2h:.1f} GB/s", flush=True)
    rows = []

    def record(case, side, seconds, first, n, peak, label_bytes):
        pixels = side * side
        floor = pixels / (h2d * 1e9) + pixels * label_bytes / (d2h * 1e9)
        row = dict(case=case, side=side, density=args.density, connectivity=args.connectivity,
                   max_gpu_memory=args.max_gpu_memory, components=n, median_ms=seconds * 1e3,
                   first_call_ms=first * 1e3, gpx_per_s=pixels / seconds / 1e9,
                   floor_ms=floor * 1e3, of_floor=floor / seconds,
                   peak_device_gib=peak / 2**30, h2d_gbs=h2d, d2h_gbs=d2h)
        rows.append(row)
        print(", ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                        for k, v in row.items()), flush=True)

    def timed(image, out, **kwargs):
        times, n = [], None
        for _ in range(args.reps):
            start = time.perf_counter()
            _, n = ccl.label(image, args.connectivity, out=out, **kwargs)
            times.append(time.perf_counter() - start)
        return statistics.median(times), n

    side = args.size
    start = time.perf_counter()
    image = random_image(side, args.density, 2)
    print(f"{side}^2 image generated in {time.perf_counter() - start:.1f} s", flush=True)
    # First, so that the peak counts the strips' memory alone.
    with PeakMemory(cupy, baseline) as peak:
        start = time.perf_counter()
        labels, n = ccl.label(image, args.connectivity, max_gpu_memory=args.max_gpu_memory)
        first = time.perf_counter() - start
        print(f"{side}^2: {n} components, labels {labels.dtype}, first call {first:.2f} s",
              flush=True)
        seconds, n_again = timed(image, labels, max_gpu_memory=args.max_gpu_memory)
    assert n_again == n
    record(f"strips-{labels.dtype}", side, seconds, first, n, peak.peak, labels.dtype.itemsize)
    # What a call without out= gets: a new label array each time, whose pages fault as the
    # labels are copied in (the labeler and its pinned buffers are kept between calls).
    dtype = labels.dtype
    del labels
    seconds, n_fresh = timed(image, None, max_gpu_memory=args.max_gpu_memory)
    assert n_fresh == n
    record(f"strips-{dtype}-new-array", side, seconds, float("nan"), n, float("nan"),
           dtype.itemsize)
    labels, _ = ccl.label(image, args.connectivity, max_gpu_memory=args.max_gpu_memory)
    # The same labels from another cap (other strips, other borders).
    other, n_other = ccl.label(image, args.connectivity, max_gpu_memory="2GiB")
    if n_other != n or not np.array_equal(other, labels):
        sys.exit(f"{side}^2: a 2GiB cap labels differently ({n_other} vs {n})")
    print(f"{side}^2: a 2GiB cap gives the same labels", flush=True)
    del other
    # Into page-locked labels (cupyx.empty_pinned): the GPU copies them there itself.
    import cupyx

    pinned = cupyx.empty_pinned(image.shape, labels.dtype)
    start = time.perf_counter()
    _, n_pinned = ccl.label(image, args.connectivity, max_gpu_memory=args.max_gpu_memory,
                            out=pinned)
    first = time.perf_counter() - start
    seconds, _ = timed(image, pinned, max_gpu_memory=args.max_gpu_memory)
    if n_pinned != n or not np.array_equal(pinned, labels):
        sys.exit(f"{side}^2: the labels in pinned memory differ")
    record(f"strips-{labels.dtype}-pinned-out", side, seconds, first, n, float("nan"),
           labels.dtype.itemsize)
    del image, labels, pinned

    if args.check_size:
        side = args.check_size
        image = random_image(side, args.density, 1)
        # Labeled whole on the device (a host array this large goes through strips unasked).
        device_labels, n_whole = ccl.label(cupy.asarray(image), args.connectivity)
        whole = cupy.asnumpy(device_labels)
        del device_labels
        # The same cap as above: the labeler is made again for u32 labels.
        start = time.perf_counter()
        strips, n_strips = ccl.label(image, args.connectivity, max_gpu_memory=args.max_gpu_memory)
        first = time.perf_counter() - start
        seconds, n = timed(image, strips, max_gpu_memory=args.max_gpu_memory)
        if n_strips != n_whole or not np.array_equal(strips, whole):
            sys.exit(f"{side}^2: strips differ from labeling whole ({n_strips} vs {n_whole})")
        print(f"{side}^2: strips equal labeling whole ({n_whole} components)", flush=True)
        # (No peak: the in-core labeling's pooled memory is still held.)
        record("strips-u32", side, seconds, first, n, float("nan"), 4)
        del image, whole, strips

    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
