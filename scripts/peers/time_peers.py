#!/usr/bin/env python3
"""Time the CPU peer libraries OpenCV and cc3d on the benchmark's own images.

Every image comes from `ccl gen` (the same MT19937 density / granularity
images that `ccl sweep` times), and the CSV written has exactly the columns
of `ccl sweep`'s sweep.csv, so that a sweep's CSV and this one concatenated
(one header) can be summarized and plotted together by `ccl plot`.

Each peer is timed around the library call alone, with time.perf_counter:
one warm-up run, then --reps timed runs; the row keeps the median and the
fastest. Labeling (`label`) is the library's labeling call; analysis
(`analyze`) is its labeling-with-statistics call, or labeling followed by
its statistics call, timed as one.

Before a row is kept, every peer's component count on the image must agree
(and with --check-ccl, also `ccl label`'s count); the run stops otherwise.
"""

import argparse
import gc
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import numpy as np
    import cv2
except ImportError as e:
    # Both are needed whatever is timed: numpy for the image, OpenCV as a peer.
    sys.exit(f"time_peers: {e}: install scripts/peers/requirements.txt "
             "(scripts/peers/time-peers does, into a venv)")

try:
    import cc3d
except ImportError:  # optional: main() says it is skipped
    cc3d = None

from peers_common import (DEFAULT_DENSITIES, DEFAULT_GRANULARITIES, HEADER, csv_row,
                          generate, int_list, resolve_ccl, size, version)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Time OpenCV and cc3d on `ccl gen` benchmark images; write a CSV "
                    "in `ccl sweep`'s format (readable by `ccl plot`).")
    p.add_argument("--ccl", default="target/release/ccl",
                   help="the ccl binary, for `ccl gen` (default: target/release/ccl, "
                        "relative to the current folder, else to the repository root)")
    p.add_argument("--size", type=size, default=(4096, 4096), metavar="WxH",
                   help="image size (default: 4096x4096)")
    p.add_argument("--densities", type=int_list, default=DEFAULT_DENSITIES, metavar="D,...",
                   help="densities in percent (default: 0,5,...,100, as `ccl sweep`)")
    p.add_argument("--granularities", type=int_list, default=DEFAULT_GRANULARITIES,
                   metavar="G,...", help="granularities (default: 1,4,16)")
    p.add_argument("--connectivity", type=int_list, default=[4, 8], metavar="4,8",
                   help="connectivities (default: 4,8)")
    p.add_argument("--task", choices=["label", "analyze", "both"], default="both",
                   help="what to time (default: both, timed separately)")
    p.add_argument("--reps", type=int, default=10,
                   help="timed runs per image, after one warm-up run (default: 10)")
    p.add_argument("--opencv-threads", type=int_list, default=[os.cpu_count() or 1],
                   metavar="N,...",
                   help="OpenCV thread counts, one row `opencv-<N>t` each "
                        f"(default: the CPU count, {os.cpu_count()})")
    p.add_argument("--peers", default="opencv,cc3d",
                   help="peers to time, comma separated: opencv, cc3d (default: both)")
    p.add_argument("--seed", type=int, default=0, help="MT19937 seed for `ccl gen` (default: 0)")
    p.add_argument("--check-ccl", action="store_true",
                   help="also check every count against `ccl label` (one extra call per "
                        "image and connectivity)")
    p.add_argument("--out", required=True, type=Path, help="the CSV to write")
    args = p.parse_args(argv)

    if args.reps < 1:
        p.error("--reps must be at least 1")
    if not args.densities or any(not 0 <= d <= 100 for d in args.densities):
        p.error("--densities must be in 0..=100")
    if not args.granularities or any(g < 1 for g in args.granularities):
        p.error("--granularities must be at least 1")
    if not args.connectivity or any(c not in (4, 8) for c in args.connectivity):
        p.error("--connectivity takes 4 and/or 8")
    if not args.opencv_threads or any(n < 1 for n in args.opencv_threads):
        p.error("--opencv-threads must be at least 1")
    args.peers = [x.strip() for x in args.peers.split(",") if x.strip()]
    unknown = set(args.peers) - {"opencv", "cc3d"}
    if unknown or not args.peers:
        p.error(f"--peers takes opencv and/or cc3d, not {','.join(sorted(unknown)) or 'nothing'}")
    args.tasks = ["label", "analyze"] if args.task == "both" else [args.task]
    return args


class Peer:
    """One row name's way to label and to analyze a 0/1 uint8 image.

    `label` and `analyze` take (image, connectivity) and return the number of
    components (background not counted), used only by the cross-check;
    `prepare` runs before each timing (OpenCV's global thread count)."""

    def __init__(self, name, label, analyze, prepare=lambda: None):
        self.name, self.label, self.analyze, self.prepare = name, label, analyze, prepare


def opencv_peer(threads):
    def prepare():
        # Global in OpenCV: set before every timing, not once, so that rows
        # for different thread counts can be interleaved.
        cv2.setNumThreads(threads)

    # OpenCV counts the background as a label: subtract it.
    def label(img, c):
        return cv2.connectedComponents(img, connectivity=c, ltype=cv2.CV_32S)[0] - 1

    def analyze(img, c):
        return cv2.connectedComponentsWithStats(img, connectivity=c, ltype=cv2.CV_32S)[0] - 1

    return Peer(f"opencv-{threads}t", label, analyze, prepare)


def cc3d_peer():
    # cc3d is single-threaded (connected_components has no thread option).
    # binary_image=True takes the binary fast path (foreground = nonzero)
    # rather than connecting equal values; return_N gives the count without
    # a pass over the labels.
    def label(img, c):
        return cc3d.connected_components(img, connectivity=c, binary_image=True, return_N=True)[1]

    # Statistics: per-label pixel counts, bounding boxes and centroids, the
    # analogue of OpenCV's stats; no_slice_conversion keeps the boxes as one
    # array instead of building a Python slice tuple per component.
    def analyze(img, c):
        labels, n = cc3d.connected_components(img, connectivity=c, binary_image=True,
                                              return_N=True)
        cc3d.statistics(labels, no_slice_conversion=True)
        return n

    return Peer("cc3d-1t", label, analyze)


def time_call(who, fn, img, c, reps):
    """(count, [ms per timed run]): one warm-up run, then `reps` timed runs.

    The previous run's result is dropped before the clock starts, so that
    freeing its output arrays is not timed; the garbage collector is off
    while timing, so that a collection does not land inside a run."""
    count = fn(img, c)
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(reps):
            result = None
            t0 = time.perf_counter()
            result = fn(img, c)
            t1 = time.perf_counter()
            times.append((t1 - t0) * 1e3)
            if result != count:
                sys.exit(f"time_peers: {who} found {count} components, then {result} "
                         "on the same image")
        del result
    finally:
        gc.enable()
    return count, times


def ccl_count(ccl, tmp, img, c):
    """`ccl label`'s component count of `img` (for --check-ccl)."""
    path = Path(tmp) / "check.pgm"
    cv2.imwrite(str(path), img * 255)
    out = subprocess.run([str(ccl), "label", "-c", str(c), str(path)],
                         check=True, capture_output=True, text=True).stdout
    m = re.search(r"(\d+) components?", out)
    if not m:
        sys.exit(f"time_peers: cannot read a count in `ccl label`'s output: {out!r}")
    return int(m[1])


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions_text(args, peers, opencv_threads_used):
    lines = [
        f"python {platform.python_version()} ({sys.executable})",
        f"numpy {np.__version__}",
        f"opencv {cv2.__version__} (opencv-python-headless {version('opencv-python-headless')})",
        f"cc3d {version('connected-components-3d') if cc3d else 'not installed'}",
        f"cpu {cpu_model()}; os.cpu_count() {os.cpu_count()}",
        f"platform {platform.platform()}",
    ]
    parallel = [l.split(":", 1)[1].strip() for l in cv2.getBuildInformation().splitlines()
                if "Parallel framework" in l]
    if parallel:
        lines.append(f"opencv parallel framework {parallel[0]}")
    for requested, used in opencv_threads_used.items():
        lines.append(f"opencv-{requested}t: cv2.getNumThreads() = {used}")
    lines.append(f"peers {','.join(p.name for p in peers)}")
    lines.append(f"images {args.size[0]}x{args.size[1]} seed {args.seed}; "
                 f"reps {args.reps} after one warm-up")
    return "\n".join(lines) + "\n"


def main(argv):
    args = parse_args(argv)
    ccl = resolve_ccl(args.ccl, "time_peers")
    width, height = args.size

    peers = []
    opencv_threads_used = {}
    if "opencv" in args.peers:
        for n in args.opencv_threads:
            peer = opencv_peer(n)
            peer.prepare()
            # OpenCV may clamp the request (e.g. a build without threading).
            opencv_threads_used[n] = cv2.getNumThreads()
            peers.append(peer)
    if "cc3d" in args.peers:
        if cc3d is None:
            print("time_peers: cc3d (connected-components-3d) is not importable: "
                  "skipping it", file=sys.stderr)
        else:
            peers.append(cc3d_peer())
    if not peers:
        sys.exit("time_peers: no peer to time")

    images = [(g, d) for g in args.granularities for d in args.densities]
    rows = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ccl-peers-") as tmp:
        for i, (g, d) in enumerate(images, 1):
            img = generate(ccl, tmp, width, height, d, g, args.seed, "time_peers")
            progress = []
            for c in args.connectivity:
                # Every peer and task must find the same number of
                # components on this image: a cheap check that each is given
                # the binary image and connectivity it is meant to get.
                counts = {}
                if args.check_ccl:
                    counts["ccl label"] = ccl_count(ccl, tmp, img, c)
                timings = []
                for task in args.tasks:
                    for peer in peers:
                        peer.prepare()
                        fn = peer.label if task == "label" else peer.analyze
                        who = f"{peer.name} {task}"
                        count, times = time_call(who, fn, img, c, args.reps)
                        counts[who] = count
                        rows.append(csv_row(peer.name, "cpu", c, task, width, height, g, d, times))
                        timings.append(f"{who} {statistics.median(times):.2f} ms")
                if len(set(counts.values())) > 1:
                    found = ", ".join(f"{who}: {n}" for who, n in counts.items())
                    sys.exit(f"time_peers: component counts differ on {width}x{height} "
                             f"d={d} g={g} seed={args.seed} {c}-connectivity: {found}")
                progress.append(f"c{c} {next(iter(counts.values()))} components: "
                                + ", ".join(timings))
            print(f"[{i}/{len(images)}] g={g} d={d}: " + "; ".join(progress), file=sys.stderr)

    # Written only once everything is measured and checked, and through a
    # temporary name, so that a stopped run leaves no partial CSV behind.
    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_name(args.out.name + ".partial")
    partial.write_text(HEADER + "\n" + "".join(r + "\n" for r in rows))
    partial.replace(args.out)
    sidecar = args.out.with_name(args.out.name + ".versions.txt")
    sidecar.write_text(versions_text(args, peers, opencv_threads_used))
    print(f"wrote {args.out} ({len(rows)} rows, {time.perf_counter() - started:.0f} s) "
          f"and {sidecar}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
