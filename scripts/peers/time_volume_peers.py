"""Times 3-D labeling from Python: ccl beside cupyx.scipy.ndimage.label,
CV-CUDA's `label` (3-D) and cc3d, on the benchmark's random volumes
(docs/benchmark.md, "Random volumes"), and writes a CSV in the columns of
`ccl sweep --volume`'s `volume-sweep.csv`, a summary in Markdown, and a
versions file. Runs on the GPU machine (no network): CuPy and the ccl wheel
installed; CV-CUDA from the pack (time-volume-peers unpacks it); cc3d where
its wheel is installed.

Calls (each timed from just before the call to after its component count
is on the host and the device is idle; one warm-up, then --reps runs):

  ccl-label      ccl.label(cupy_volume, connectivity=c)         labels + count
  ccl-analyze    ccl.analyze(cupy_volume, connectivity=c)       the features, no labels (task analyze)
  cupyx-label    cupyx.scipy.ndimage.label(v, structure(c))     labels + count
  cvcuda-label   cvcuda.label(DHW tensor, CONNECTIVITY_6_3D / 26_3D, bg_label=0, FAST, count=True)
  cc3d-label     cc3d.connected_components(host volume, connectivity=c)  (host, one thread)
  ccl-host       ccl.label(host volume, connectivity=c, algorithm=--host-algorithm, out=reused)

Without CuPy (a machine without a GPU) only the host calls run: --calls
ccl-host,cc3d-label times ccl's CPU labeler beside cc3d on the same volumes.

The volumes are made here with NumPy's RandomState, the independent
generator of ccl-testdata's golden tests, so every library gets the same
voxels as `ccl sweep --volume`; the component counts of all calls are
compared image by image.
"""

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HEADER = ("variant,backend,connectivity,task,width,height,depth,granularity,density,reps,"
          "median_ms,min_ms,gvox_per_s,transfer_ms,stages")
CALLS = ["ccl-label", "ccl-analyze", "cupyx-label", "cvcuda-label", "cc3d-label", "ccl-host"]


def random_volume(w, h, d, density, g, seed):
    """docs/benchmark.md's random volume: one MT19937 draw per g*g*g cell,
    cells in raster order (z outer), foreground below density% of 2^32."""
    cw, ch, cd = -(-w // g), -(-h // g), -(-d // g)
    u = np.random.RandomState(seed).randint(0, 2**32, size=cd * ch * cw, dtype=np.uint32)
    cells = (u.astype(np.uint64) < density * 2**32 // 100).reshape(cd, ch, cw)
    v = cells.repeat(g, 0).repeat(g, 1).repeat(g, 2)[:d, :h, :w]
    return np.ascontiguousarray(v.astype(np.uint8))


def int_list(text):
    return [int(x) for x in text.split(",") if x.strip()]


def size3(text):
    parts = [int(x) for x in text.split("x")]
    if len(parts) != 3 or min(parts) <= 0:
        raise argparse.ArgumentTypeError(f"not a size WxHxD: {text!r}")
    return tuple(parts)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", type=size3, default=(512, 512, 512), help="WxHxD [512x512x512]")
    p.add_argument("--densities", type=int_list, default=[5, 10, 14, 20, 31, 40, 50, 60, 70, 80])
    p.add_argument("--granularities", type=int_list, default=[1, 4, 16])
    p.add_argument("--connectivity", type=int_list, default=[6, 18, 26])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--cc3d-reps", type=int, default=1, help="runs of cc3d (seconds each at 512^3)")
    p.add_argument("--calls", default=",".join(CALLS[:5]))
    p.add_argument("--host-algorithm", default="cpu-rle", help="the variant of ccl-host")
    p.add_argument("--out", type=Path, required=True, help="the CSV to write")
    args = p.parse_args(argv)
    args.calls = [c for c in args.calls.split(",") if c]
    unknown = [c for c in args.calls if c not in CALLS]
    if unknown:
        p.error(f"unknown calls {unknown}; known: {CALLS}")
    return args


class Call:
    def __init__(self, name, connectivities, make, backend="cuda", task="label"):
        self.name, self.connectivities, self.make, self.backend = name, connectivities, make, backend
        self.task = task


def make_calls(args, cupy):
    calls = []
    problems = []
    if "ccl-host" in args.calls:
        import ccl

        def host(v, c):
            volume = v if cupy is None else cupy.asnumpy(v)
            out = np.empty(volume.shape, np.uint32)
            return lambda: ccl.label(volume, connectivity=c, algorithm=args.host_algorithm, out=out)[1]

        calls.append(Call("ccl-host", (6, 18, 26), host, backend="cpu"))
    if "ccl-label" in args.calls or "ccl-analyze" in args.calls:
        try:
            import ccl

            def label(v, c):
                return lambda: ccl.label(v, connectivity=c)[1]

            def analyze(v, c):
                return lambda: len(ccl.analyze(v, connectivity=c).area)

            if "ccl-label" in args.calls:
                calls.append(Call("ccl-label", (6, 18, 26), label))
            if "ccl-analyze" in args.calls:
                calls.append(Call("ccl-analyze", (6, 18, 26), analyze, task="analyze"))
        except ImportError as e:
            problems.append(f"ccl: {e}")
    if "cupyx-label" in args.calls:
        from cupyx.scipy import ndimage
        import scipy.ndimage

        structures = {c: cupy.asarray(scipy.ndimage.generate_binary_structure(3, r))
                      for c, r in ((6, 1), (18, 2), (26, 3))}

        def cupyx(v, c):
            return lambda: int(ndimage.label(v, structure=structures[c])[1])

        calls.append(Call("cupyx-label", (6, 18, 26), cupyx))
    if "cvcuda-label" in args.calls:
        try:
            import cvcuda
            kinds = {6: cvcuda.CONNECTIVITY_6_3D}
            if hasattr(cvcuda, "CONNECTIVITY_26_3D"):
                kinds[26] = cvcuda.CONNECTIVITY_26_3D

            # Without a background value CV-CUDA labels the regions of 0 too
            # (it labels regions of equal value) and counts them.
            zero = cupy.zeros(1, cupy.uint8)
            background = cvcuda.as_tensor(zero, "N")

            def cv(v, c):
                tensor = cvcuda.as_tensor(v, "DHW")

                def run():
                    _, count, _ = cvcuda.label(tensor, connectivity=kinds[c], bg_label=background,
                                               assign_labels=cvcuda.LABEL.FAST, count=True)
                    return int(cupy.asarray(count.cuda())[0])
                return run

            calls.append(Call("cvcuda-label", tuple(kinds), cv))
        except ImportError as e:
            problems.append(f"cvcuda: {e}")
    if "cc3d-label" in args.calls:
        try:
            import cc3d

            def cc(v, c):
                host = v if cupy is None else cupy.asnumpy(v)
                return lambda: int(cc3d.connected_components(host, connectivity=c, return_N=True)[1])

            calls.append(Call("cc3d-label", (6, 18, 26), cc, backend="cpu"))
        except ImportError as e:
            problems.append(f"cc3d: {e}")
    return calls, problems


def time_call(run, reps, sync):
    count = run()
    sync()
    times = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(reps):
            t0 = time.perf_counter()
            n = run()
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
            if n != count:
                raise RuntimeError(f"counts differ between runs: {count} then {n}")
    finally:
        gc.enable()
    return count, times


def main(argv):
    args = parse_args(argv)
    try:
        import cupy
    except ImportError:
        cupy = None
    w, h, d = args.size
    calls, problems = make_calls(args, cupy)
    for p in problems:
        print(f"time_volume_peers: PROBLEM: {p}", file=sys.stderr)
    sync = cupy.cuda.runtime.deviceSynchronize if cupy is not None else (lambda: None)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    import os
    versions = ([f"device: {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}",
                 f"cupy {cupy.__version__}, numpy {np.__version__}"] if cupy is not None else
                [f"device: host only, {os.cpu_count()} CPUs", f"numpy {np.__version__}"])
    for name in ("ccl", "cvcuda", "cc3d", "scipy"):
        try:
            module = __import__(name)
            versions.append(f"{name} {getattr(module, '__version__', '?')}")
        except ImportError:
            versions.append(f"{name} not installed")
    versions.append("command: time_volume_peers.py " + " ".join(argv))
    args.out.with_name(args.out.name + ".versions.txt").write_text("\n".join(versions) + "\n")
    rows = []
    failed = set()
    with open(args.out, "w") as csv:
        csv.write(HEADER + "\n")
        for g in args.granularities:
            for density in args.densities:
                volume = random_volume(w, h, d, density, g, args.seed)
                if cupy is not None:
                    volume = cupy.asarray(volume)
                line = []
                for c in args.connectivity:
                    counts = {}
                    for call in calls:
                        if c not in call.connectivities or (call.name, c) in failed:
                            continue
                        reps = args.cc3d_reps if call.name == "cc3d-label" else args.reps
                        try:
                            count, times = time_call(call.make(volume, c), reps, sync)
                        except Exception as e:
                            failed.add((call.name, c))  # that call in that connectivity only
                            problems.append(f"{call.name} failed at g={g} d={density} c={c}: "
                                            f"{type(e).__name__}: {e}")
                            print(f"time_volume_peers: PROBLEM: {problems[-1]}", file=sys.stderr)
                            continue
                        counts[call.name] = count
                        median = statistics.median(times)
                        gvox = w * h * d / (median / 1e3) / 1e9
                        csv.write(f"{call.name},{call.backend},{c},{call.task},{w},{h},{d},{g},{density},"
                                  f"{len(times)},{median:.6f},{min(times):.6f},{gvox:.6f},0.000000,"
                                  f"total={median:.6f}\n")
                        rows.append((call.name, c, g, density, median))
                        line.append(f"{call.name}/{c} {median:.2f} ms")
                    if len(set(counts.values())) > 1:
                        problems.append(f"counts differ at g={g} d={density} c={c}: {counts}")
                        print(f"time_volume_peers: PROBLEM: {problems[-1]}", file=sys.stderr)
                csv.flush()
                print(f"g={g} d={density}: " + ", ".join(line), file=sys.stderr)
                del volume
                if cupy is not None:
                    cupy.get_default_memory_pool().free_all_blocks()
    # Mean Gvox/s over densities per call, connectivity and granularity.
    md = [f"# Python 3-D calls, {w}x{h}x{d} random volumes", "", versions[0], "",
          "| call | conn | " + " | ".join(f"g={g} Gvox/s" for g in args.granularities) + " |",
          "| :--- | ---: |" + " ---: |" * len(args.granularities)]
    for name in dict.fromkeys(r[0] for r in rows):
        for c in args.connectivity:
            cells = []
            for g in args.granularities:
                ms = [r[4] for r in rows if r[0] == name and r[1] == c and r[2] == g]
                cells.append(f"{statistics.fmean(w * h * d / (t / 1e3) / 1e9 for t in ms):.2f}" if ms else "-")
            if any(x != "-" for x in cells):
                md.append(f"| {name} | {c} | " + " | ".join(cells) + " |")
    args.out.with_name(args.out.name + ".md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    if problems:
        print("time_volume_peers: PROBLEMS:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
