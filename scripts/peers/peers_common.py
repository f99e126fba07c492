"""What both peer timers (time_peers.py on the CPU, time_gpu_peers.py on the
GPU) share: `ccl sweep`'s CSV columns and row format, the sweep's default
densities and granularities, the argument types, finding the ccl binary,
and the benchmark images made by `ccl gen`."""

import argparse
import importlib.metadata
import re
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

# The columns of `ccl sweep`'s CSV (ccl-bench/src/sweep/csv.rs, HEADER):
# `ccl plot` rejects a file whose first line differs.
HEADER = ("variant,backend,connectivity,task,width,height,granularity,density,"
          "reps,median_ms,min_ms,gpx_per_s,transfer_ms,stages,pattern")

# The sweep's default densities (0, 5, ..., 100) and granularities, so that a
# peer's mean over densities averages over the same images as our variants'.
DEFAULT_DENSITIES = list(range(0, 101, 5))
DEFAULT_GRANULARITIES = [1, 4, 16]

REPO_ROOT = Path(__file__).resolve().parent.parent.parent


def int_list(text):
    """'1,4,16' -> [1, 4, 16] (argparse type)."""
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}")


def size(text):
    """'4096x4096' -> (4096, 4096), as `ccl gen --size` reads it."""
    m = re.fullmatch(r"(\d+)x(\d+)", text)
    if not m or int(m[1]) == 0 or int(m[2]) == 0:
        raise argparse.ArgumentTypeError(f"not a size WxH: {text!r}")
    return int(m[1]), int(m[2])


def resolve_ccl(path_text, who):
    """The ccl binary: as given if it exists, else (for a relative path) under
    the repository root, so that a script also runs from another folder."""
    path = Path(path_text)
    if not path.exists() and not path.is_absolute() and (REPO_ROOT / path).exists():
        path = REPO_ROOT / path
    if not path.exists():
        sys.exit(f"{who}: no ccl binary at {path_text} (build it, or pass --ccl PATH)")
    return path.resolve()


def generate(ccl, tmp, width, height, density, granularity, seed, who):
    """The benchmark image from `ccl gen`, as a C-contiguous numpy uint8 0/1
    array. Written as binary PGM, which numpy reads without an image library:
    `ccl gen` writes the header `P5\\n<W> <H>\\n255\\n`, then one byte a pixel."""
    path = Path(tmp) / f"d{density}-g{granularity}.pgm"
    subprocess.run([str(ccl), "gen", "--size", f"{width}x{height}", "-d", str(density),
                    "-g", str(granularity), "--seed", str(seed), "-o", str(path)],
                   check=True, stdout=subprocess.DEVNULL)
    data = path.read_bytes()
    path.unlink()
    magic, dims, maxval, pixels = data.split(b"\n", 3)
    if (magic, dims.split(), maxval) != (b"P5", [b"%d" % width, b"%d" % height], b"255") \
            or len(pixels) != width * height:
        sys.exit(f"{who}: `ccl gen` wrote no {width}x{height} binary PGM ({data[:32]!r}...)")
    gray = np.frombuffer(pixels, dtype=np.uint8).reshape(height, width)
    # ccl gen writes 0/255; every library takes nonzero as foreground (and
    # CV-CUDA labels regions of equal value): 0/1 is a binary image for all.
    return (gray != 0).astype(np.uint8)


def csv_row(variant, backend, c, task, width, height, g, d, times):
    """One CSV line as ccl-bench's to_csv writes it (six decimals). A peer has
    no stages of its own: its one stage `total` is the median; the image is
    where the library works already, so transfer_ms is 0; `pattern` is empty
    for the random images."""
    median = statistics.median(times)
    gpx = width * height / (median / 1e3) / 1e9 if median > 0 else 0.0
    return (f"{variant},{backend},{c},{task},{width},{height},{g},{d},{len(times)},"
            f"{median:.6f},{min(times):.6f},{gpx:.6f},0.000000,total={median:.6f},")


def version(dist):
    """The installed version of a distribution, or "not installed"."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
