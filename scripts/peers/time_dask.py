"""Times `ccl.dask.label` beside dask-image's `ndmeasure.label` on one random dask volume
larger than a chunk (by default 2048^3 uint8 in 512^3 chunks), and writes a CSV, a Markdown
summary and a versions file. Runs on the GPU machine (no network: dask, distributed and
dask-image installed from carried wheels into a PYTHONPATH folder, dask-cuda too where it is
carried; the ccl wheel as for ccl-python/bench), or on any machine at a small --size.

The volume is made chunk by chunk by dask, each chunk seeded (dask's
`da.random.default_rng(seed).random(shape, chunks=..., dtype=float32) < density`, cast to
uint8), so it never lies whole in memory while it is made. By default it is then persisted
(8 GiB at 2048^3: on the host, or with --cupy in GPU memory), so that both libraries are timed
on the same chunks and neither pays the random draws; --no-persist times them on the lazy
volume instead (ccl.dask computes its input twice, dask-image once), which is the run that
shows memory bounded by the chunks in flight.

Calls (one warm-up on one chunk, then --reps runs; each timed from the call to the end of
the store and the count on the host):

  ccl-dask     labels, n = ccl.dask.label(a, c)           (n eager)
               da.store(labels, sink)                     (the labels, chunk by chunk)
  dask-image   labels, n = dask_image.ndmeasure.label(a, structure(c))
               dask.compute(da.store(labels, sink, compute=False), n)   (one graph)

The sink (--sink) is `discard` by default: an object whose __setitem__ drops each chunk of
labels once it is made (for CuPy chunks after a stream synchronize), so that the labels are
computed in full but never gathered and memory stays that of the chunks in flight; `numpy`
stores them into one preallocated host array (threads scheduler only; 4 bytes a voxel
for ccl, 4 or 8 for dask-image's int32 / int64 labels).

Each call runs in a child process of this script (with its own cluster under
--scheduler distributed), so that its peak resident memory (`ru_maxrss` of the child: the
client, and with threads the workers too) is its own; with --scheduler distributed the
workers' peaks (each worker's `ru_maxrss`, summed) are reported beside it.

dask-image's child is killed after --dask-image-timeout seconds (default 360, so that one
density of both fits a device command of 10 minutes; 0: dask-image is not run): its row
then says `timeout` (a note, not a failure) and the summary gives the speedup as a lower
bound (> timeout / ccl's time). At 2048^3 dask-image needs minutes, and it holds every
chunk's labels until its relabeling (int32, the whole volume: 32 GiB, beside the input), so
a --size beyond what memory holds should be run with --dask-image-timeout 0. The component
counts of both calls must agree, else the run says so and exits with 1.

With --cupy, ccl.dask gets CuPy chunks and dask-image the same volume in numpy chunks (it
labels with scipy.ndimage on the host; it has no CuPy label).

  --scheduler threads       dask's threaded scheduler in the child (all cores).
  --scheduler distributed   a LocalCluster of --workers processes (--threads-per-worker
                            threads each, default cores / workers); with --cupy, dask-cuda's
                            LocalCUDACluster where it is installed (--workers workers, one
                            per GPU), else --workers processes sharing GPU 0.

Example (the target: ccl >= 10x faster than dask-image at 2048^3 in 512^3 chunks):

  scripts/peers/time-dask --size 2048 --chunk 512 --density 31 --connectivity 6 --out DIR/dask.csv
  scripts/peers/time-dask --size 64 --chunk 16 --reps 1 --out /tmp/dask.csv     # a smoke test
"""

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from peers_common import int_list, version

HEADER = ("library,scheduler,workers,chunk_type,connectivity,depth,height,width,chunk,density,"
          "persist,reps,median_s,min_s,gvox_per_s,n,peak_rss_mib,workers_peak_rss_mib,status")
LIBRARIES = ("ccl-dask", "dask-image")
# scipy's structure of each connectivity: generate_binary_structure(ndim, rank).
RANKS = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}


def shape3(text):
    """'2048' -> (2048, 2048, 2048); '512x1024x2048' -> (512, 1024, 2048) (depth x height x
    width, the array's order)."""
    parts = [int(x) for x in text.lower().split("x")]
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3 or min(parts) <= 0:
        raise argparse.ArgumentTypeError(f"not a size N or DxHxW: {text!r}")
    return tuple(parts)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=shape3, default=(2048,) * 3, help="N or DxHxW [2048]")
    p.add_argument("--chunk", type=shape3, default=(512,) * 3, help="N or DxHxW [512]")
    p.add_argument("--density", type=int_list, default=[31],
                   help="foreground percentages, comma-separated [31: 6-connected percolation]")
    p.add_argument("--connectivity", type=int_list, default=[6], help="6, 18, 26 [6]")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cupy", action="store_true", help="CuPy chunks (map_blocks(cupy.asarray))")
    p.add_argument("--scheduler", choices=("threads", "distributed"), default="threads")
    p.add_argument("--workers", type=int, default=1,
                   help="workers of --scheduler distributed (with --cupy and dask-cuda: GPUs)")
    p.add_argument("--threads-per-worker", type=int, default=0,
                   help="threads of each distributed worker [cores / workers]")
    p.add_argument("--no-persist", dest="persist", action="store_false",
                   help="time on the lazy volume (random draws included), not a persisted one")
    p.add_argument("--sink", choices=("discard", "numpy"), default="discard")
    p.add_argument("--dask-image-timeout", type=float, default=360,
                   help="seconds before dask-image's child is killed; 0: do not run it [360]")
    p.add_argument("--libraries", default=",".join(LIBRARIES))
    p.add_argument("--out", type=Path, help="the CSV to write (required but in a child)")
    p.add_argument("--child", help=argparse.SUPPRESS)  # library,density,connectivity
    args = p.parse_args(argv)
    args.libraries = [x for x in args.libraries.split(",") if x]
    unknown = [x for x in args.libraries if x not in LIBRARIES]
    if unknown:
        p.error(f"unknown libraries {unknown}; known: {list(LIBRARIES)}")
    if any(c not in (6, 18, 26) for c in args.connectivity):
        p.error("--connectivity takes 6, 18 or 26 (volumes)")
    if args.sink == "numpy" and args.scheduler == "distributed":
        p.error("--sink numpy needs --scheduler threads (the workers would fill copies)")
    if args.child is None and args.out is None:
        p.error("--out is required")
    return args


# ------------------------------------------------------------------ the child: one call


class DiscardSink:
    """A da.store target that drops each chunk it is given (after waiting for a CuPy chunk's
    kernels), so that the labels are made in full but never held."""

    def __setitem__(self, key, value):
        if type(value).__module__.split(".")[0] == "cupy":
            import cupy

            cupy.cuda.get_current_stream().synchronize()


def random_volume(args, density, on_gpu):
    """The benchmark's dask volume: uint8 0/1, seeded per chunk by dask's generator; CuPy
    chunks where ``on_gpu`` (the same values)."""
    import dask.array as da
    import numpy as np

    rng = da.random.default_rng(args.seed)
    draws = rng.random(args.size, chunks=args.chunk, dtype=np.float32)
    volume = (draws < np.float32(density / 100)).astype(np.uint8)
    if on_gpu:
        import cupy

        volume = volume.map_blocks(cupy.asarray, dtype=np.uint8,
                                   meta=cupy.empty((0, 0, 0), np.uint8))
    return volume


def start_scheduler(args):
    """The client of --scheduler distributed (None for threads), and a note of what runs."""
    if args.scheduler == "threads":
        return None, f"threads ({os.cpu_count()} CPUs)"
    import distributed

    threads = args.threads_per_worker or max(1, (os.cpu_count() or 1) // args.workers)
    cluster = None
    if args.cupy:
        try:
            from dask_cuda import LocalCUDACluster

            # One worker per GPU, on the first --workers GPUs.
            cluster = LocalCUDACluster(n_workers=args.workers, threads_per_worker=threads,
                                       dashboard_address=None)
            note = f"dask-cuda LocalCUDACluster {args.workers} workers (one per GPU) x {threads} threads"
        except ImportError:
            pass
    if cluster is None:
        cluster = distributed.LocalCluster(n_workers=args.workers, threads_per_worker=threads,
                                           processes=True, dashboard_address=None)
        note = f"LocalCluster {args.workers} workers x {threads} threads"
    return distributed.Client(cluster), note


def workers_peak_mib(client):
    """The sum of the workers' peak resident memory (their ru_maxrss, KiB on Linux)."""
    if client is None:
        return ""
    peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return f"{sum(peaks.values()) / 1024:.0f}"


def make_call(library, volume, connectivity, sink):
    import dask
    import dask.array as da
    import numpy as np

    if library == "ccl-dask":
        import ccl.dask

        def run():
            labels, n = ccl.dask.label(volume, connectivity)
            if isinstance(sink, np.ndarray) and type(labels._meta).__module__ == "cupy":
                import cupy

                labels = labels.map_blocks(cupy.asnumpy, meta=np.empty((0, 0, 0), labels.dtype))
            da.store(labels, sink, lock=False)
            return int(n)

        return run
    import scipy.ndimage
    from dask_image import ndmeasure

    structure = scipy.ndimage.generate_binary_structure(3, RANKS[connectivity])

    def run():
        labels, n = ndmeasure.label(volume, structure)
        _, n = dask.compute(da.store(labels, sink, lock=False, compute=False), n)
        return int(n)

    return run


def child(args):
    """Times one library at one density and connectivity; prints one JSON line."""
    import numpy as np

    library, density, connectivity = args.child.split(",")
    density, connectivity = int(density), int(connectivity)
    client, note = start_scheduler(args)
    # dask-image labels with scipy.ndimage on the host (it has no CuPy label): with --cupy it
    # gets the same volume in numpy chunks.
    volume = random_volume(args, density, on_gpu=args.cupy and library == "ccl-dask")
    if args.persist:
        volume = volume.persist()  # the threaded scheduler computes it here
        if client is not None:
            import distributed

            distributed.wait(volume)
    sink = DiscardSink()
    if args.sink == "numpy":
        sink = np.empty(args.size, np.int64 if library == "dask-image" else np.uint32)
    # Warm-up: one chunk, so that CUDA contexts, pools and imports are not timed.
    make_call(library, volume[tuple(slice(0, c) for c in args.chunk)], connectivity,
              DiscardSink())()
    times, counts = [], []
    for _ in range(args.reps):
        t0 = time.perf_counter()
        counts.append(make_call(library, volume, connectivity, sink)())
        times.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {"times": times, "counts": counts, "peak_rss_mib": round(peak),
              "workers_peak_rss_mib": workers_peak_mib(client), "scheduler": note}
    if client is not None:
        client.close()
    print("RESULT " + json.dumps(result), flush=True)
    return 0


# ------------------------------------------------------------------ the parent


def run_child(args, argv, library, density, connectivity):
    """One call in a child process: its result, or a status (timeout, failed)."""
    timeout = args.dask_image_timeout if library == "dask-image" else None
    command = [sys.executable, __file__, *argv, "--child", f"{library},{density},{connectivity}"]
    # A session of its own, so that a timeout ends the child's cluster workers with it.
    child_process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True)
    try:
        stdout, stderr = child_process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child_process.pid, signal.SIGKILL)
        child_process.communicate()
        return None, f"timeout after {timeout:.0f} s"
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):]), "ok"
    tail = (stderr.strip().splitlines() or ["(no output)"])[-1]
    return None, f"failed (exit {child_process.returncode}): {tail}"


def main(argv):
    args = parse_args(argv)
    if args.child is not None:
        return child(args)
    d, h, w = args.size
    voxels = d * h * w
    chunk_type = "cupy" if args.cupy else "numpy"
    workers = args.workers if args.scheduler == "distributed" else 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    versions = [f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs"]
    for dist in ("ccl", "numpy", "dask", "distributed", "dask-image", "scipy", "dask-cuda"):
        versions.append(f"{dist} {version(dist)}")
    # CuPy's distribution is named for its CUDA (cupy-cuda13x): ask the module.
    try:
        import cupy

        versions.append(f"cupy {cupy.__version__}")
    except ImportError:
        versions.append("cupy not installed")
    if args.cupy:
        try:
            import cupy

            versions.insert(0, "device: "
                            + cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
        except Exception as e:  # noqa: BLE001 (reported, and the children fail alike)
            versions.insert(0, f"device: none ({type(e).__name__}: {e})")
    versions.append("command: time_dask.py " + " ".join(argv))
    args.out.with_name(args.out.name + ".versions.txt").write_text("\n".join(versions) + "\n")
    problems, rows, timeouts = [], [], []
    libraries = [lib for lib in args.libraries
                 if lib != "dask-image" or args.dask_image_timeout > 0]
    with open(args.out, "w") as csv:
        csv.write(HEADER + "\n")
        for c in args.connectivity:
            for density in args.density:
                counts = {}
                for library in libraries:
                    result, status = run_child(args, argv, library, density, c)
                    if result is None:
                        # A timeout is the documented skip of a peer too slow to wait for.
                        what = "NOTE" if status.startswith("timeout") else "PROBLEM"
                        message = f"{library} d={density} c={c}: {status}"
                        if what == "PROBLEM":
                            problems.append(message)
                        else:
                            timeouts.append((library, c, density))
                        print(f"time_dask: {what}: {message}", file=sys.stderr)
                        csv.write(f"{library},{args.scheduler},{workers},{chunk_type},{c},{d},{h},"
                                  f"{w},{'x'.join(map(str, args.chunk))},{density},"
                                  f"{int(args.persist)},0,,,,,,,{status}\n")
                        continue
                    if len(set(result["counts"])) > 1:
                        problems.append(f"{library} d={density} c={c}: counts differ between "
                                        f"runs: {result['counts']}")
                    counts[library] = result["counts"][0]
                    times = result["times"]
                    median = statistics.median(times)
                    csv.write(f"{library},{args.scheduler},{workers},{chunk_type},{c},{d},{h},{w},"
                              f"{'x'.join(map(str, args.chunk))},{density},{int(args.persist)},"
                              f"{len(times)},{median:.6f},{min(times):.6f},"
                              f"{voxels / median / 1e9:.6f},{counts[library]},"
                              f"{result['peak_rss_mib']},{result['workers_peak_rss_mib']},ok\n")
                    csv.flush()
                    rows.append((library, c, density, median, counts[library],
                                 result["peak_rss_mib"], result["workers_peak_rss_mib"]))
                    print(f"{library} c={c} d={density}: {median:.3f} s (min {min(times):.3f}), "
                          f"n={counts[library]}, peak RSS {result['peak_rss_mib']} MiB "
                          f"[{result['scheduler']}]", file=sys.stderr)
                if len(set(counts.values())) > 1:
                    problems.append(f"counts differ at d={density} c={c}: {counts}")
                    print(f"time_dask: PROBLEM: {problems[-1]}", file=sys.stderr)
    title = (f"# ccl.dask beside dask-image, {d}x{h}x{w} uint8 in "
             f"{'x'.join(map(str, args.chunk))} chunks ({chunk_type}, {args.scheduler}"
             f"{f', {workers} workers' if workers else ''}, "
             f"{'persisted' if args.persist else 'lazy'} input)")
    md = [title, "", versions[0], "",
          "| library | conn | density % | median s | n | peak RSS MiB | workers' MiB | speedup |",
          "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for library, c, density, median, n, peak, wpeak in rows:
        ours = [r[3] for r in rows if r[0] == "ccl-dask" and r[1] == c and r[2] == density]
        speedup = f"{median / ours[0]:.1f}x" if ours and library != "ccl-dask" else ""
        md.append(f"| {library} | {c} | {density} | {median:.3f} | {n} | {peak} | {wpeak} | "
                  f"{speedup} |")
    for library, c, density in timeouts:
        ours = [r[3] for r in rows if r[0] == "ccl-dask" and r[1] == c and r[2] == density]
        bound = f"> {args.dask_image_timeout / ours[0]:.1f}x" if ours else ""
        md.append(f"| {library} | {c} | {density} | > {args.dask_image_timeout:.0f} "
                  f"(timeout) | | | | {bound} |")
    args.out.with_name(args.out.name + ".md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    if problems:
        print("time_dask: PROBLEMS:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
