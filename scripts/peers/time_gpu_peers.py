#!/usr/bin/env python3
"""Time what a Python user calls on the GPU to label a CuPy image: ccl beside
cupyx.scipy.ndimage and CV-CUDA, on the benchmark's own images.

Every image comes from `ccl gen` (the MT19937 density / granularity images
that `ccl sweep` times, seed 0 by default), generated one at a time, copied
to the GPU once as a C-contiguous uint8 CuPy array of 0/1, and given to each
call in turn:

  py-ccl-label           ccl.label(a, connectivity=c)                labels + count
  py-ccl-stats           ccl.connected_components_with_stats(a, connectivity=c)
                                                  labels + OpenCV-layout stats, centroids
  cupyx-label            cupyx.scipy.ndimage.label(a, structure)     labels + count
                         (4: the cross, 8: 3x3 ones)
  cvcuda-label           cvcuda.label(.., LABEL.FAST, count=True)    labels + count
  cvcuda-label-nocount   cvcuda.label(.., LABEL.FAST)                labels alone
  cvcuda-stats           cvcuda.label(.., LABEL.SEQUENTIAL, count=True, stats=True)
                                                  labels 1..n + bounding box and area
  torch-ccl-label        ccl.label(t, connectivity=c), t a torch view of the same image

ccl runs its default (fastest) variant. CV-CUDA labels 2-D images in
4-connectivity only (8 raises "Full neighborhood labeling not supported
yet"), so its rows are 4-connectivity only. Its input is wrapped with
cvcuda.as_tensor(a, "HW") inside the timed call, as a CuPy user must; the
background (0) is excluded by a bg_label tensor; its work goes on CuPy's
current stream. LABEL.FAST numbers components in no particular order and
SEQUENTIAL needs the statistics, so only cvcuda-stats has labels 1..n (in
no particular order either; ccl's and cupyx's are in raster order).
cvcuda-stats passes max_labels = ceil(W*H/2), the most 4-connected
components a W x H image can hold, so that every component gets its
statistics, as a caller who does not know the count beforehand must (its
statistics tensor, 7 int32 a label, is 0.9 GB at 8192x8192).

Each call is timed with time.perf_counter, from just before it to after its
count is on the host (int(n); for CV-CUDA a read of its count tensor) and
the device is synchronized: one warm-up call, then --reps timed calls; the
row keeps the median and the fastest. The counts of all calls on the same
image and connectivity must agree: a mismatch is reported on stderr, the
run goes on, and the script exits with 1 at the end.

Writes --out, a CSV with `ccl sweep`'s columns (backend `cuda`, transfer 0,
one stage `total`, task `label` or `analyze`), readable by `ccl plot`;
<out>.versions.txt (libraries, GPU, driver); and <out>.md, the summary also
printed: mean Gpx/s over densities per call, and our speedups over the
peers image by image. On the GPU machine (README.md beside this file):

    scripts/peers/time-gpu-peers --ccl .gpu/ccl --out DIR/gpu-peers.csv
"""

import argparse
import gc
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, NamedTuple

try:
    import numpy as np
except ImportError as e:  # CuPy needs it too
    sys.exit(f"time_gpu_peers: needs numpy and CuPy: {e}")

from peers_common import (DEFAULT_DENSITIES, DEFAULT_GRANULARITIES, HEADER, csv_row,
                          generate, int_list, resolve_ccl, size, version)

# The densities with structure: the summary's second mean leaves out the
# near-empty and near-full images, where every call only streams memory.
STRUCTURED = range(10, 91)

# (ours, peer, connectivities) pairs whose speed ratio the summary reports.
RATIOS = [
    ("py-ccl-label", "cvcuda-label", (4,)),
    ("py-ccl-stats", "cvcuda-stats", (4,)),
    ("py-ccl-label", "cupyx-label", (4, 8)),
]

class Call(NamedTuple):
    """One CSV variant: `make(image, connectivity)` does the untimed set-up
    and returns the timed function, which returns (component count, or None
    where the call gives none, and the outputs, kept until the clock stops)."""

    name: str
    task: str
    connectivities: tuple
    make: Callable


class Timing(NamedTuple):
    """One row of the CSV: a call's timed runs on one image."""

    variant: str
    task: str
    connectivity: int
    width: int
    height: int
    granularity: int
    density: int
    times: list  # ms

    @property
    def median(self):
        return statistics.median(self.times)

    @property
    def gpx(self):
        return self.width * self.height / (self.median * 1e-3) / 1e9


CALL_NAMES = ["py-ccl-label", "py-ccl-stats", "cupyx-label", "cvcuda-label",
              "cvcuda-label-nocount", "cvcuda-stats", "torch-ccl-label"]


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Time ccl, cupyx.scipy.ndimage and CV-CUDA labeling on CuPy arrays of "
                    "`ccl gen` benchmark images; write a CSV in `ccl sweep`'s format.")
    p.add_argument("--ccl", default="target/release/ccl",
                   help="the ccl binary, for `ccl gen` (default: target/release/ccl, relative "
                        "to the current folder, else to the repository root; .gpu/ccl on the "
                        "GPU machine)")
    p.add_argument("--size", type=size, default=(8192, 8192), metavar="WxH",
                   help="image size (default: 8192x8192)")
    p.add_argument("--densities", type=int_list, default=DEFAULT_DENSITIES, metavar="D,...",
                   help="densities in percent (default: 0,5,...,100, as `ccl sweep`)")
    p.add_argument("--granularities", type=int_list, default=DEFAULT_GRANULARITIES,
                   metavar="G,...", help="granularities (default: 1,4,16)")
    p.add_argument("--connectivity", type=int_list, default=[4, 8], metavar="4,8",
                   help="connectivities (default: 4,8; CV-CUDA's calls run in 4 only)")
    p.add_argument("--reps", type=int, default=10,
                   help="timed calls per image, after one warm-up call (default: 10)")
    p.add_argument("--calls", default=",".join(CALL_NAMES), metavar="NAME,...",
                   help="calls to time (default: all of " + ", ".join(CALL_NAMES) +
                        "; CV-CUDA's and torch's are skipped where they do not import)")
    p.add_argument("--seed", type=int, default=0, help="MT19937 seed for `ccl gen` (default: 0)")
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
    args.calls = [x.strip() for x in args.calls.split(",") if x.strip()]
    unknown = [x for x in args.calls if x not in CALL_NAMES]
    if unknown or not args.calls:
        p.error(f"--calls takes {', '.join(CALL_NAMES)}, not {','.join(unknown) or 'nothing'}")
    return args


def time_call(fn, reps, sync):
    """(count, [ms per timed run], whether every run gave the same count):
    one warm-up run, then `reps` timed runs, each from just before the call
    to after its count is on the host and `sync()` returns.

    The previous run's outputs are dropped before the clock starts, so that
    freeing them is not timed; the garbage collector is off while timing,
    so that a collection does not land inside a run."""
    count, outputs = fn()
    sync()
    outputs = None
    times, steady = [], True
    gc.collect()
    gc.disable()
    try:
        for _ in range(reps):
            outputs = None
            t0 = time.perf_counter()
            n, outputs = fn()
            sync()
            t1 = time.perf_counter()
            times.append((t1 - t0) * 1e3)
            steady = steady and n == count
        outputs = None
    finally:
        gc.enable()
    return count, times, steady


def _mean(values):
    return f"{statistics.fmean(values):.2f}" if values else "-"


def summary_markdown(timings, granularities, title):
    """The summary: mean Gpx/s over densities per call, connectivity and
    granularity (all densities, then 10-90 % only); then for each pair of
    RATIOS, the speedup image by image (the peer's median / ours, = our
    Gpx/s / the peer's): its minimum and means over densities, and its
    value at every density."""
    gs = " | ".join(f"g={g}" for g in granularities)
    gs_structured = " | ".join(f"g={g}, 10-90 %" for g in granularities)
    lines = [f"# {title}", "", "## Mean Gpx/s over densities", "",
             f"| call | conn | {gs} | {gs_structured} |",
             "| :--- | ---: |" + " ---: |" * (2 * len(granularities))]
    rows = sorted({(t.variant, t.connectivity) for t in timings},
                  key=lambda row: (CALL_NAMES.index(row[0]), row[1]))
    for variant, c in rows:
        mine = [t for t in timings if (t.variant, t.connectivity) == (variant, c)]
        full = [_mean([t.gpx for t in mine if t.granularity == g]) for g in granularities]
        structured = [_mean([t.gpx for t in mine if t.granularity == g and t.density in STRUCTURED])
                      for g in granularities]
        lines.append(f"| {variant} | {c} | " + " | ".join(full + structured) + " |")

    median = {(t.variant, t.connectivity, t.granularity, t.density): t.median for t in timings}
    overall, per_density = [], []
    for ours, peer, conns in RATIOS:
        for c in conns:
            speedup = {(g, d): median[peer, c, g, d] / ms
                       for (variant, cc, g, d), ms in median.items()
                       if (variant, cc) == (ours, c) and (peer, c, g, d) in median and ms > 0}
            if not speedup:
                continue
            per_density += ["", f"### {ours} / {peer}, {c}-connectivity", "",
                            f"| d | {gs} |", "| ---: |" + " ---: |" * len(granularities)]
            for d in sorted({d for _, d in speedup}):
                per_density.append(f"| {d} | " + " | ".join(
                    f"{speedup[g, d]:.2f}" if (g, d) in speedup else "-"
                    for g in granularities) + " |")
            for g in granularities:
                at = {d: s for (gg, d), s in speedup.items() if gg == g}
                if at:
                    worst = min(at, key=at.get)
                    overall.append(
                        f"| {ours} / {peer} | {c} | {g} | {at[worst]:.2f} (d={worst}) | "
                        f"{_mean(list(at.values()))} | "
                        f"{_mean([s for d, s in at.items() if d in STRUCTURED])} |")
    if overall:
        lines += ["", "## Speedup of ours over the peers", "",
                  "Image by image, the peer's median time / ours (= our Gpx/s / the peer's): "
                  "its minimum over densities (and where), its mean over all densities and "
                  "over 10-90 %.", "",
                  "| ours / peer | conn | g | min | mean | mean 10-90 % |",
                  "| :--- | ---: | ---: | ---: | ---: | ---: |"]
        lines += overall + ["", "## Speedup at each density"] + per_density
    return "\n".join(lines) + "\n"


def import_gpu_stack():
    """(cupy, cupyx.scipy.ndimage, ccl): the imports every run needs."""
    try:
        import cupy
        import cupyx.scipy.ndimage as ndimage
    except ImportError as e:
        sys.exit(f"time_gpu_peers: needs CuPy and a CUDA GPU: {e}")
    try:
        import ccl
    except ImportError as e:
        sys.exit(f"time_gpu_peers: cannot import ccl (install the wheel built by maturin "
                 f"in ccl-python): {e}")
    return cupy, ndimage, ccl


def optional_module(name, wanted, why):
    """The module, or None with a line on stderr saying which calls are skipped."""
    if not wanted:
        return None
    try:
        return __import__(name)
    except (ImportError, OSError) as e:  # OSError: a library the module loads is missing
        print(f"time_gpu_peers: cannot import {name} ({e}): skipping {', '.join(wanted)}"
              + why, file=sys.stderr)
        return None


def make_calls(ndimage, ccl, torch):
    """ccl's, cupyx's and (where it imported) torch's calls."""
    structures = {4: np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool),
                  8: np.ones((3, 3), dtype=bool)}

    def py_ccl_label(image, c):
        def run():
            labels, n = ccl.label(image, connectivity=c)
            return n, labels
        return run

    def py_ccl_stats(image, c):
        def run():
            n, labels, stats, centroids = ccl.connected_components_with_stats(
                image, connectivity=c)
            return n - 1, (labels, stats, centroids)  # n counts the background
        return run

    def cupyx_label(image, c):
        def run():
            labels, n = ndimage.label(image, structures[c])
            return int(n), labels
        return run

    def torch_ccl_label(image, c):
        tensor = torch.from_dlpack(image)  # a view: no copy, not timed

        def run():
            labels, n = ccl.label(tensor, connectivity=c)
            return n, labels
        return run

    calls = [Call("py-ccl-label", "label", (4, 8), py_ccl_label),
             Call("py-ccl-stats", "analyze", (4, 8), py_ccl_stats),
             Call("cupyx-label", "label", (4, 8), cupyx_label)]
    if torch is not None:
        calls.append(Call("torch-ccl-label", "label", (4, 8), torch_ccl_label))
    return calls


def cvcuda_calls(cupy, cvcuda, width, height):
    """CV-CUDA's label in 4-connectivity, three ways (see the module docstring)."""
    # Made once, as a caller would: the background value (0, the input's
    # dtype, layout N: one per image), kept beside the CuPy array it wraps;
    # and CuPy's current stream, for CV-CUDA to queue its work on.
    zero = cupy.zeros(1, dtype=cupy.uint8)
    background = (zero, cvcuda.as_tensor(zero, "N"))
    stream = cvcuda.as_stream(cupy.cuda.get_current_stream())

    def call(name, task, **options):
        def make(image, c):
            def run():
                labels, count, stats = cvcuda.label(
                    cvcuda.as_tensor(image, "HW"), connectivity=cvcuda.CONNECTIVITY_4_2D,
                    bg_label=background[1], stream=stream, **options)
                # The count is a 1-element int32 tensor on the device: reading
                # it is part of the call, as ccl's and cupyx's return theirs.
                n = None if count is None else int(cupy.asarray(count.cuda())[0])
                return n, (labels, count, stats)
            return run
        return Call(name, task, (4,), make)

    fast, sequential = cvcuda.LABEL.FAST, cvcuda.LABEL.SEQUENTIAL
    return [call("cvcuda-label", "label", assign_labels=fast, count=True),
            call("cvcuda-label-nocount", "label", assign_labels=fast),
            call("cvcuda-stats", "analyze", assign_labels=sequential, count=True, stats=True,
                 max_labels=(width * height + 1) // 2)]


def gpu_name(cupy):
    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else name


def versions_text(args, ccl_path, cupy, ccl, cvcuda, torch, calls):
    def cuda_version(v):  # 13000 -> 13.0
        return f"{v // 1000}.{v % 1000 // 10}"

    rt = cupy.cuda.runtime
    ccl_binary = subprocess.run([str(ccl_path), "--version"], capture_output=True, text=True)
    lines = [
        f"python {platform.python_version()} ({sys.executable})",
        f"numpy {np.__version__}",
        f"cupy {cupy.__version__}",
        f"ccl (python) {version('ccl')} from {Path(ccl.__file__).parent}",
        "ccl variants available (priority; the default is the highest): " + ", ".join(
            f"{a.name} ({a.priority})" for a in ccl.algorithms() if a.available),
        f"ccl binary (for ccl gen) {ccl_path}: {ccl_binary.stdout.strip()}",
        # The CV-CUDA pack has no package metadata: the module says its version.
        f"cvcuda {cvcuda.__version__}; cache limit {cvcuda.get_cache_limit_inbytes() >> 20} MiB"
        if cvcuda else "cvcuda not imported",
        f"torch {torch.__version__} (CUDA {torch.version.cuda})" if torch else "torch not imported",
        f"gpu {gpu_name(cupy)}",
        f"cuda driver {cuda_version(rt.driverGetVersion())}, "
        f"runtime {cuda_version(rt.runtimeGetVersion())}",
        f"platform {platform.platform()}",
        f"calls {','.join(call.name for call in calls)}",
        f"images {args.size[0]}x{args.size[1]} seed {args.seed}; "
        f"reps {args.reps} after one warm-up",
    ]
    return "\n".join(lines) + "\n"


def main(argv):
    args = parse_args(argv)
    ccl_path = resolve_ccl(args.ccl, "time_gpu_peers")
    width, height = args.size
    cupy, ndimage, ccl = import_gpu_stack()
    cvcuda = optional_module("cvcuda", [n for n in args.calls if n.startswith("cvcuda-")],
                             " (unpack the CV-CUDA pack: README.md beside this script)")
    torch = optional_module("torch", [n for n in args.calls if n.startswith("torch-")], "")
    problems, failed = [], set()

    def report(problem):
        problems.append(problem)
        print(f"time_gpu_peers: PROBLEM: {problem}", file=sys.stderr)

    calls = make_calls(ndimage, ccl, torch)
    if cvcuda is not None:
        try:
            calls += cvcuda_calls(cupy, cvcuda, width, height)
        except Exception as e:  # as for a call that fails, below
            report(f"CV-CUDA's set-up failed, its calls are skipped: {type(e).__name__}: {e}")
    calls = sorted((call for call in calls if call.name in args.calls),
                   key=lambda call: CALL_NAMES.index(call.name))
    if not calls:
        sys.exit("time_gpu_peers: no call to time")
    if 8 in args.connectivity and any(call.connectivities == (4,) for call in calls):
        print("time_gpu_peers: CV-CUDA labels 2-D images in 4-connectivity only: "
              "no cvcuda rows in 8-connectivity", file=sys.stderr)

    def sync():
        # The whole device, not one stream: whatever stream a library queues
        # its work on, the time includes it.
        cupy.cuda.runtime.deviceSynchronize()

    args.out.parent.mkdir(parents=True, exist_ok=True)
    sidecar = args.out.with_name(args.out.name + ".versions.txt")
    sidecar.write_text(versions_text(args, ccl_path, cupy, ccl, cvcuda, torch, calls))
    images = [(g, d) for g in args.granularities for d in args.densities]
    timings = []
    started = time.perf_counter()
    # Written as the run goes, one flush per image, so that a run stopped by
    # a time limit leaves the rows of the images it finished.
    with open(args.out, "w") as csv, \
            tempfile.TemporaryDirectory(prefix="ccl-gpu-peers-") as tmp:
        csv.write(HEADER + "\n")
        for i, (g, d) in enumerate(images, 1):
            image = cupy.asarray(generate(ccl_path, tmp, width, height, d, g, args.seed, "time_gpu_peers"))
            progress = []
            for c in args.connectivity:
                counts, medians = {}, []
                for call in calls:
                    if c not in call.connectivities:
                        continue
                    if call.name in failed:
                        continue
                    try:
                        count, times, steady = time_call(call.make(image, c), args.reps, sync)
                    except Exception as e:
                        # A library's API can change between releases: one
                        # call that fails is reported and dropped, and the
                        # others' measurements go on.
                        failed.add(call.name)
                        report(f"{call.name} failed at d={d} g={g} c={c}, not timed from "
                               f"there on: {type(e).__name__}: {e}")
                        continue
                    if not steady:
                        report(f"{call.name} gave different counts on the same image "
                               f"(first {count}) at d={d} g={g} c={c}")
                    if count is not None:
                        counts[call.name] = count
                    t = Timing(call.name, call.task, c, width, height, g, d, times)
                    timings.append(t)
                    csv.write(csv_row(t.variant, "cuda", t.connectivity, t.task, t.width, t.height,
                                      t.granularity, t.density, t.times) + "\n")
                    medians.append(f"{call.name} {t.median:.2f} ms")
                if len(set(counts.values())) > 1:
                    found = ", ".join(f"{name} {n}" for name, n in counts.items())
                    report(f"component counts differ on {width}x{height} d={d} g={g} "
                           f"seed={args.seed} {c}-connectivity: {found}")
                found = next(iter(counts.values()), "?")
                progress.append(f"c{c} {found} components: " + ", ".join(medians))
            csv.flush()
            print(f"[{i}/{len(images)}] g={g} d={d}: " + "; ".join(progress), file=sys.stderr)
            del image
            cupy.get_default_memory_pool().free_all_blocks()

    title = (f"Python GPU calls on {gpu_name(cupy)}, {width}x{height} `ccl gen` images, "
             f"median of {args.reps} after one warm-up")
    summary = summary_markdown(timings, args.granularities, title)
    md = args.out.with_name(args.out.name + ".md")
    md.write_text(summary)
    print(summary)
    print(f"wrote {args.out} ({len(timings)} rows, {time.perf_counter() - started:.0f} s), "
          f"{sidecar} and {md}", file=sys.stderr)
    if problems:
        print("time_gpu_peers: PROBLEMS:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
