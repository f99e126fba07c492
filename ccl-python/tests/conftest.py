"""Shared images, oracles and assertions for the `ccl` test suite.

Everything the tests compare against is computed here on the host, independently of `ccl`:

* images: seeded random images (density 0..100 %, granularity 1 / 4 / 16), structured patterns
  (checkerboard, stripes, a width-1 spiral, combs, rings, a snake, ...) and the real PNGs of
  ccl-testdata;
* oracles: OpenCV's `connectedComponentsWithStatsWithAlgorithm(..., CV_32S, CCL_WU)` (labels,
  stats, centroids) and `scipy.ndimage.label` (labels, count); the two are checked to agree
  with each other before any `ccl` result is compared with them;
* reference features (area, inclusive bounding box, coordinate sums, centroids) computed from
  the oracle labels with `np.bincount` and `scipy.ndimage.find_objects`;
* assertions that say *how* two results differ (foreground mismatch, split or merged
  components, same partition numbered in another order, ...), so a failure is readable;
* helpers shared with the GPU tests: dtype encoders, memory layouts and `to_numpy`.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
import pytest
from scipy import ndimage

import ccl

# --------------------------------------------------------------------------------------------
# Constants and the algorithm registry as seen at collection time
# --------------------------------------------------------------------------------------------

REAL_DIR = Path(__file__).resolve().parent.parent.parent / "ccl-testdata" / "data" / "real"

CONNECTIVITIES = (4, 8)

#: Every input dtype the spec accepts.
DTYPES = (
    np.bool_,
    np.uint8,
    np.int8,
    np.uint16,
    np.int16,
    np.uint32,
    np.int32,
    np.uint64,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
)

#: Host memory layouts (see `with_layout`).
LAYOUTS = ("C", "F", "strided", "window", "transposed", "reversed", "reversed-window")

FEATURE_FIELDS = ("area", "x_min", "y_min", "x_max", "y_max", "sum_x", "sum_y", "centroids")

ALGORITHM_FIELDS = (
    "name",
    "backend",
    "connectivities",
    "tasks",
    "available",
    "reason",
    "summary",
    "priority",
)

#: The registry, read once when the test modules are collected.
ALGORITHMS = tuple(ccl.algorithms())


def algorithm_names(task: str, connectivity: int | None = None, backend: str | None = None):
    """Names of the available algorithms that perform `task` (with `connectivity`)."""
    return [
        info.name
        for info in ALGORITHMS
        if info.available
        and task in info.tasks
        and (connectivity is None or connectivity in info.connectivities)
        and (backend is None or info.backend == backend)
    ]


def algorithm_info(name: str):
    return next(info for info in ALGORITHMS if info.name == name)


def cuda_algorithms_available() -> bool:
    return any(info.available and info.backend == "cuda" for info in ALGORITHMS)


def host_has_nvidia_gpu() -> bool:
    """True where an NVIDIA driver exposes a device (used only to interpret availability)."""
    return os.path.exists("/dev/nvidiactl") or os.path.exists("/proc/driver/nvidia/gpus")


# --------------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------------


def random_image(shape, density: float, granularity: int, seed: int) -> np.ndarray:
    """A bool image of `shape` made of g x g cells, each set with probability density / 100."""
    rng = np.random.default_rng(seed)
    h, w = shape
    g = granularity
    cells = rng.random(((h + g - 1) // g, (w + g - 1) // g)) < density / 100.0
    return np.repeat(np.repeat(cells, g, axis=0), g, axis=1)[:h, :w].copy()


def checkerboard(shape, cell: int = 1) -> np.ndarray:
    y, x = np.indices(shape)
    return (y // cell + x // cell) % 2 == 0


def stripes_horizontal(shape, period: int = 2) -> np.ndarray:
    y, _ = np.indices(shape)
    return y % period == 0


def stripes_vertical(shape, period: int = 2) -> np.ndarray:
    _, x = np.indices(shape)
    return x % period == 0


def stripes_diagonal(shape, period: int = 3) -> np.ndarray:
    """Lines x + y = k * period: separate pixels under 4-connectivity, lines under 8."""
    y, x = np.indices(shape)
    return (x + y) % period == 0


def stripes_antidiagonal(shape, period: int = 3) -> np.ndarray:
    y, x = np.indices(shape)
    return (x - y) % period == 0


def spiral(shape) -> np.ndarray:
    """A square spiral of width 1 with a gap of 1 between its turns: one component."""
    h, w = shape
    image = np.zeros(shape, dtype=bool)
    directions = ((0, 1), (1, 0), (0, -1), (-1, 0))

    def free(y, x):
        return 0 <= y < h and 0 <= x < w and not image[y, x]

    def can_move(y, x, d):
        dy, dx = directions[d]
        ny, nx = y + dy, x + dx
        if not free(ny, nx):
            return False
        # Keep a gap: the pixel after the next one, and the next one's side neighbours
        # away from the path just drawn, must be free.
        ay, ax = ny + dy, nx + dx
        if 0 <= ay < h and 0 <= ax < w and image[ay, ax]:
            return False
        return True

    y, x, d = 0, 0, 0
    image[0, 0] = True
    turns_without_move = 0
    while turns_without_move < 2:
        if can_move(y, x, d):
            dy, dx = directions[d]
            y, x = y + dy, x + dx
            image[y, x] = True
            turns_without_move = 0
        else:
            d = (d + 1) % 4
            turns_without_move += 1
    return image


def comb(shape) -> np.ndarray:
    """Two interleaved combs (one hanging from the top row, one standing on the bottom row).

    Their teeth alternate, so a raster scan sees many provisional labels that merge only at
    the far end: the classic hard case for union-find. Two components in both connectivities
    when the image has at least 5 rows.
    """
    h, w = shape
    image = np.zeros(shape, dtype=bool)
    image[0, :] = True
    image[h - 1, :] = True
    image[0 : h - 2, 0::4] = True
    image[2:h, 2::4] = True
    return image


def rings_square(shape) -> np.ndarray:
    """Concentric square rings one pixel wide, one pixel apart."""
    h, w = shape
    y, x = np.indices(shape)
    return np.maximum(np.abs(y - h // 2), np.abs(x - w // 2)) % 2 == 0


def rings_round(shape) -> np.ndarray:
    """Concentric circles one pixel wide, where 4- and 8-connectivity disagree."""
    h, w = shape
    y, x = np.indices(shape)
    radius = np.sqrt((y - (h - 1) / 2.0) ** 2 + (x - (w - 1) / 2.0) ** 2)
    return np.floor(radius).astype(np.int64) % 3 == 0


def snake(shape) -> np.ndarray:
    """A 1-pixel path winding right, down, left, down, ... through the whole image."""
    h, w = shape
    image = np.zeros(shape, dtype=bool)
    image[0::2, :] = True
    for row in range(1, h, 2):
        image[row, w - 1 if (row // 2) % 2 == 0 else 0] = True
    return image


def single_pixel(shape, y: int, x: int) -> np.ndarray:
    image = np.zeros(shape, dtype=bool)
    image[y % shape[0], x % shape[1]] = True
    return image


def frame(shape) -> np.ndarray:
    image = np.zeros(shape, dtype=bool)
    image[0, :] = image[-1, :] = image[:, 0] = image[:, -1] = True
    return image


def load_real(name: str) -> np.ndarray:
    path = REAL_DIR / f"{name}.png"
    gray = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if gray is None:
        raise FileNotFoundError(f"cannot read {path}")
    return gray != 0


def real_image_names():
    return sorted(path.stem for path in REAL_DIR.glob("*.png"))


@functools.lru_cache(maxsize=None)
def real_component_counts():
    with open(REAL_DIR / "components.json") as f:
        return json.load(f)


@dataclass(frozen=True)
class Case:
    """A named test image; `make` builds it as a C-contiguous bool array."""

    id: str
    make: Callable[[], np.ndarray]


RANDOM_SIZES = (
    (1, 1),
    (1, 97),
    (97, 1),
    (2, 3),
    (37, 53),
    (63, 65),
    (64, 64),
    (129, 100),
    (256, 256),
    (1000, 7),
    (7, 1000),
)
RANDOM_DENSITIES = tuple(range(0, 101, 10))
GRANULARITIES = (1, 4, 16)

#: The smaller random set run with every named algorithm (the default runs them all).
SMALL_RANDOM_SIZES = ((1, 1), (1, 97), (97, 1), (37, 53), (256, 256), (1000, 7))
SMALL_RANDOM_DENSITIES = (0, 30, 50, 60, 80, 100)


def _random_case(shape, density, granularity) -> Case:
    h, w = shape
    seed = (h * 7919 + w) * 1000 + density * 10 + granularity
    return Case(
        f"random-{h}x{w}-d{density}-g{granularity}",
        functools.partial(random_image, shape, density, granularity, seed),
    )


def _pattern_cases():
    cases = []
    for shape in ((37, 53), (64, 96)):
        h, w = shape
        tag = f"{h}x{w}"
        cases += [
            Case(f"checkerboard-{tag}", functools.partial(checkerboard, shape)),
            Case(f"checkerboard3-{tag}", functools.partial(checkerboard, shape, 3)),
            Case(f"stripes-h-{tag}", functools.partial(stripes_horizontal, shape)),
            Case(f"stripes-v-{tag}", functools.partial(stripes_vertical, shape)),
            Case(f"stripes-diag-{tag}", functools.partial(stripes_diagonal, shape)),
            Case(f"stripes-antidiag-{tag}", functools.partial(stripes_antidiagonal, shape)),
            Case(f"spiral-{tag}", functools.partial(spiral, shape)),
            Case(f"comb-{tag}", functools.partial(comb, shape)),
            Case(f"rings-square-{tag}", functools.partial(rings_square, shape)),
            Case(f"rings-round-{tag}", functools.partial(rings_round, shape)),
            Case(f"snake-{tag}", functools.partial(snake, shape)),
            Case(f"frame-{tag}", functools.partial(frame, shape)),
            Case(f"single-first-{tag}", functools.partial(single_pixel, shape, 0, 0)),
            Case(f"single-last-{tag}", functools.partial(single_pixel, shape, -1, -1)),
            Case(f"single-middle-{tag}", functools.partial(single_pixel, shape, h // 2, w // 2)),
            Case(f"zeros-{tag}", functools.partial(np.zeros, shape, bool)),
            Case(f"ones-{tag}", functools.partial(np.ones, shape, bool)),
        ]
    for shape in ((1, 70), (70, 1), (1, 1)):
        h, w = shape
        tag = f"{h}x{w}"
        cases += [
            Case(f"checkerboard-{tag}", functools.partial(checkerboard, shape)),
            Case(f"stripes-v-{tag}", functools.partial(stripes_vertical, shape, 3)),
            Case(f"stripes-h-{tag}", functools.partial(stripes_horizontal, shape, 3)),
            Case(f"zeros-{tag}", functools.partial(np.zeros, shape, bool)),
            Case(f"ones-{tag}", functools.partial(np.ones, shape, bool)),
        ]
    cases.append(Case("spiral-101x67", functools.partial(spiral, (101, 67))))
    cases.append(Case("snake-65x130", functools.partial(snake, (65, 130))))
    return cases


RANDOM_CASES = tuple(
    _random_case(shape, d, g)
    for shape in RANDOM_SIZES
    for d in RANDOM_DENSITIES
    for g in GRANULARITIES
)
SMALL_RANDOM_CASES = tuple(
    _random_case(shape, d, g)
    for shape in SMALL_RANDOM_SIZES
    for d in SMALL_RANDOM_DENSITIES
    for g in GRANULARITIES
)
PATTERN_CASES = tuple(_pattern_cases())
REAL_CASES = tuple(
    Case(f"real-{name}", functools.partial(load_real, name)) for name in real_image_names()
)

#: Every image, for the default algorithm.
ALL_CASES = RANDOM_CASES + PATTERN_CASES + REAL_CASES
#: The smaller set, for each named algorithm.
SMALL_CASES = SMALL_RANDOM_CASES + PATTERN_CASES + REAL_CASES

_CASES_BY_ID = {case.id: case for case in ALL_CASES + SMALL_CASES}
assert len({case.id for case in ALL_CASES}) == len(ALL_CASES), "duplicate case ids"


@functools.lru_cache(maxsize=None)
def case_image(case_id: str) -> np.ndarray:
    """The case's bool image (cached, read-only: tests pass copies or views of copies)."""
    image = np.ascontiguousarray(_CASES_BY_ID[case_id].make(), dtype=bool)
    assert image.ndim == 2 and image.size > 0, case_id
    image.flags.writeable = False
    return image


# --------------------------------------------------------------------------------------------
# Oracles
# --------------------------------------------------------------------------------------------


def raster_renumber(labels: np.ndarray) -> np.ndarray:
    """Any labeling renumbered 1..n in raster order of each component's first element
    (uint32; 0 stays background)."""
    flat = labels.ravel()
    values, first = np.unique(flat, return_index=True)
    order = values[np.argsort(first)]
    order = order[order != 0]
    remap = np.zeros(int(flat.max(initial=0)) + 1, np.uint64)
    remap[order] = np.arange(1, len(order) + 1)
    return remap[labels].astype(np.uint32)


def cleaned_labels(labels: np.ndarray, n: int, min_size=0, max_size=None, largest=None,
                   min_extent=None, max_extent=None) -> np.ndarray:  # fmt: skip
    """The clean-up of canonical ``labels`` (1..n), the definition the tests hold ccl to:
    the size and bounding-box extent ranges, then the ``largest`` by size (of equal sizes
    the first label), what is kept renumbered 1..k in label order (uint32)."""
    areas = np.bincount(labels.ravel(), minlength=n + 1)[1:]
    keep = areas >= min_size
    if max_size is not None:
        keep &= areas <= max_size
    boxes = ndimage.find_objects(labels.astype(np.int32), max_label=n)
    extents = np.array([[s.stop - s.start for s in box] for box in boxes]).reshape(n, labels.ndim)
    if min_extent is not None:
        keep &= (extents >= np.array(min_extent)).all(axis=1)
    if max_extent is not None:
        keep &= (extents <= np.array(max_extent)).all(axis=1)
    if largest is not None:
        order = sorted(np.flatnonzero(keep), key=lambda i: (-areas[i], i))
        keep[:] = False
        keep[order[:largest]] = True
    renumber = np.zeros(n + 1, np.uint32)
    renumber[1:][keep] = np.arange(1, keep.sum() + 1, dtype=np.uint32)
    return renumber[labels]


def scipy_structure(connectivity: int) -> np.ndarray:
    """scipy's structuring element of a connectivity: 4 / 8 of images, 6 / 18 / 26 of volumes."""
    if connectivity == 4:
        return ndimage.generate_binary_structure(2, 1)
    if connectivity == 8:
        return np.ones((3, 3), dtype=bool)
    rank = {6: 1, 18: 2, 26: 3}.get(connectivity)
    if rank is None:
        raise AssertionError(connectivity)
    return ndimage.generate_binary_structure(3, rank)


def cv2_stats(binary: np.ndarray, connectivity: int):
    """OpenCV's (n incl. background, labels int32, stats int32 (n, 5), centroids float64)."""
    img8 = np.ascontiguousarray(binary != 0).astype(np.uint8)
    return cv2.connectedComponentsWithStatsWithAlgorithm(
        img8, connectivity, cv2.CV_32S, cv2.CCL_WU
    )


def scipy_label(binary: np.ndarray, connectivity: int):
    labels, n = ndimage.label(np.asarray(binary != 0), structure=scipy_structure(connectivity))
    return labels, int(n)


@dataclass(frozen=True)
class ReferenceFeatures:
    area: np.ndarray  # uint32 (N,)
    x_min: np.ndarray
    y_min: np.ndarray
    x_max: np.ndarray  # inclusive
    y_max: np.ndarray
    sum_x: np.ndarray  # uint64 (N,)
    sum_y: np.ndarray
    centroids: np.ndarray  # float64 (N, 2): x, y


def features_from_labels(labels: np.ndarray, n: int) -> ReferenceFeatures:
    """Area, inclusive bbox, coordinate sums and centroids of labels 1..n (canonical labels)."""
    h, w = labels.shape
    flat = labels.ravel().astype(np.int64)
    ys, xs = np.indices((h, w))
    area = np.bincount(flat, minlength=n + 1)[1:]
    # Float weights sum exactly here: every partial sum is an integer far below 2**53.
    sum_x = np.bincount(flat, weights=xs.ravel(), minlength=n + 1)[1:]
    sum_y = np.bincount(flat, weights=ys.ravel(), minlength=n + 1)[1:]
    x_min = np.zeros(n, np.uint32)
    y_min = np.zeros(n, np.uint32)
    x_max = np.zeros(n, np.uint32)
    y_max = np.zeros(n, np.uint32)
    for i, slices in enumerate(ndimage.find_objects(labels.astype(np.int32), max_label=n)):
        assert slices is not None, f"label {i + 1} has no pixel"
        ys_, xs_ = slices
        y_min[i], y_max[i] = ys_.start, ys_.stop - 1
        x_min[i], x_max[i] = xs_.start, xs_.stop - 1
    area_f = area.astype(np.float64)
    centroids = np.stack([sum_x / area_f, sum_y / area_f], axis=1).reshape(n, 2)
    return ReferenceFeatures(
        area=area.astype(np.uint32),
        x_min=x_min,
        y_min=y_min,
        x_max=x_max,
        y_max=y_max,
        sum_x=sum_x.astype(np.uint64),
        sum_y=sum_y.astype(np.uint64),
        centroids=centroids.astype(np.float64),
    )


@dataclass(frozen=True)
class Oracle:
    """What `ccl` must return for one image and connectivity."""

    n: int  # components, background excluded
    labels: np.ndarray  # canonical labels, int32 (H, W)
    cv_n: int  # OpenCV's count (background included)
    cv_stats: np.ndarray  # int32 (cv_n, 5)
    cv_centroids: np.ndarray  # float64 (cv_n, 2)
    has_background: bool
    features: ReferenceFeatures


def compute_oracle(binary: np.ndarray, connectivity: int) -> Oracle:
    binary = np.asarray(binary, dtype=bool)
    cv_n, cv_labels, cv_stats_, cv_centroids = cv2_stats(binary, connectivity)
    sp_labels, sp_n = scipy_label(binary, connectivity)
    # The two references must agree before either is used to judge ccl.
    assert sp_n == cv_n - 1, f"oracles disagree on the count: scipy {sp_n}, OpenCV {cv_n - 1}"
    assert np.array_equal(sp_labels, cv_labels), "oracles disagree on the labels"
    features = features_from_labels(cv_labels, sp_n)
    has_background = bool((~binary).any())
    if sp_n:
        # OpenCV's stats and centroids agree with the reference features, bit for bit.
        assert np.array_equal(cv_stats_[1:, cv2.CC_STAT_AREA], features.area)
        assert np.array_equal(cv_stats_[1:, cv2.CC_STAT_LEFT], features.x_min)
        assert np.array_equal(cv_stats_[1:, cv2.CC_STAT_TOP], features.y_min)
        right = cv_stats_[1:, cv2.CC_STAT_LEFT] + cv_stats_[1:, cv2.CC_STAT_WIDTH] - 1
        bottom = cv_stats_[1:, cv2.CC_STAT_TOP] + cv_stats_[1:, cv2.CC_STAT_HEIGHT] - 1
        assert np.array_equal(right, features.x_max)
        assert np.array_equal(bottom, features.y_max)
        assert np.array_equal(cv_centroids[1:], features.centroids)
    return Oracle(
        n=sp_n,
        labels=cv_labels,
        cv_n=int(cv_n),
        cv_stats=cv_stats_,
        cv_centroids=cv_centroids,
        has_background=has_background,
        features=features,
    )


@functools.lru_cache(maxsize=None)
def case_oracle(case_id: str, connectivity: int) -> Oracle:
    return compute_oracle(case_image(case_id), connectivity)


# --------------------------------------------------------------------------------------------
# Encoding a binary image in every dtype, and every memory layout
# --------------------------------------------------------------------------------------------


def _foreground_values(dtype: np.dtype):
    """Nonzero values that catch careless conversions (truncation to a byte, float -> int)."""
    if dtype.kind == "b":
        return [True]
    if dtype.kind in "ui":
        info = np.iinfo(dtype)
        candidates = [1, 2, -1, 127, -128, 255, 256, -256, 1 << 16, 1 << 32, info.min, info.max]
        return sorted({v for v in candidates if v != 0 and info.min <= v <= info.max})
    info = np.finfo(dtype)
    return [
        1.0,
        0.5,
        -0.5,
        1e-3,
        256.0,
        float(info.smallest_subnormal),
        -float(info.smallest_subnormal),
        float(info.max),
        np.inf,
        -np.inf,
        np.nan,
    ]


def _background_values(dtype: np.dtype):
    if dtype.kind == "f":
        return [0.0, -0.0]
    return [0]


def encode(binary: np.ndarray, dtype, seed: int = 0) -> np.ndarray:
    """A C-contiguous array of `dtype` whose nonzero pixels are exactly `binary`'s.

    Foreground pixels take varied nonzero values (256, 2**32, 0.5, NaN, -inf, subnormals, ...)
    and float background pixels are 0.0 or -0.0.
    """
    dtype = np.dtype(dtype)
    binary = np.asarray(binary, dtype=bool)
    if dtype.kind == "b":
        return binary.copy()
    rng = np.random.default_rng(seed)
    fg = np.array(_foreground_values(dtype), dtype=dtype)
    bg = np.array(_background_values(dtype), dtype=dtype)
    out = np.where(
        binary,
        fg[rng.integers(0, len(fg), binary.shape)],
        bg[rng.integers(0, len(bg), binary.shape)],
    ).astype(dtype)
    assert np.array_equal(out != 0, binary)
    return np.ascontiguousarray(out)


def _garbage(shape, dtype, seed: int) -> np.ndarray:
    """Filler around views: about half foreground, so reading it changes the result."""
    return encode(np.random.default_rng(seed).random(shape) < 0.5, dtype, seed + 1)


def with_layout(values: np.ndarray, layout: str, seed: int = 0) -> np.ndarray:
    """An array equal to `values` (C-contiguous, 2-D) laid out in memory as `layout` says.

    C: contiguous rows. F: contiguous columns. strided: big[::2, ::3]. window: big[1:-1, 2:].
    transposed: the transpose of a C array (a column-major view). reversed: big[::-1, ::-1]
    (both strides negative). reversed-window: big[-2::-1, 1:] (negative row stride, offset).
    Pixels of `big` outside the view are foreground / background garbage.
    """
    h, w = values.shape
    dtype = values.dtype
    if layout == "C":
        out = np.ascontiguousarray(values).copy()
    elif layout == "F":
        out = np.asfortranarray(values)
        assert out.flags.f_contiguous
    elif layout == "strided":
        big = _garbage((2 * h, 3 * w), dtype, seed)
        big[::2, ::3] = values
        out = big[::2, ::3]
    elif layout == "window":
        big = _garbage((h + 2, w + 2), dtype, seed)
        big[1:-1, 2:] = values
        out = big[1:-1, 2:]
    elif layout == "transposed":
        out = np.ascontiguousarray(values.T).T
    elif layout == "reversed":
        big = np.ascontiguousarray(values[::-1, ::-1])
        out = big[::-1, ::-1]
        assert out.strides[0] < 0 and out.strides[1] < 0
    elif layout == "reversed-window":
        big = _garbage((h + 1, w + 1), dtype, seed)
        big[-2::-1, 1:] = values
        out = big[-2::-1, 1:]
        assert out.strides[0] < 0
    else:
        raise AssertionError(f"unknown layout {layout}")
    assert out.shape == values.shape
    assert np.array_equal(out != 0, values != 0)
    return out


# --------------------------------------------------------------------------------------------
# Framework-neutral conversion
# --------------------------------------------------------------------------------------------


def framework_of(x) -> str:
    module = type(x).__module__.split(".")[0]
    if module == "numpy":
        return "numpy"
    if module == "cupy":
        return "cupy"
    if module == "torch":
        return "torch"
    return module


def to_numpy(x, dtype=None) -> np.ndarray:
    """A host numpy copy of a numpy / CuPy / torch array (torch.uint32 goes through int64)."""
    kind = framework_of(x)
    if kind == "cupy":
        import cupy

        out = cupy.asnumpy(x)
    elif kind == "torch":
        import torch

        t = x.detach().cpu()
        wide_unsigned = [getattr(torch, n, None) for n in ("uint16", "uint32", "uint64")]
        if t.dtype in [d for d in wide_unsigned if d is not None]:
            t = t.to(torch.int64)
        out = t.numpy()
    else:
        out = np.asarray(x)
    if dtype is not None:
        out = out.astype(dtype)
    return out


# --------------------------------------------------------------------------------------------
# Assertions with readable messages
# --------------------------------------------------------------------------------------------


def _at(flat_index, shape) -> str:
    """Where a flat index of an image or volume lies: "(y=1, x=2)" or "(z=0, y=1, x=2)"."""
    coords = np.unravel_index(int(flat_index), shape)
    names = ("z", "y", "x")[-len(shape) :]
    return "(" + ", ".join(f"{n}={int(c)}" for n, c in zip(names, coords)) + ")"


def partition_mismatch(actual: np.ndarray, expected: np.ndarray) -> str | None:
    """None when the two labelings are the same partition of the same foreground, else why."""
    if actual.shape != expected.shape:
        return f"shape {actual.shape} != expected {expected.shape}"
    a = np.asarray(actual).astype(np.int64).ravel()
    b = np.asarray(expected).astype(np.int64).ravel()
    shape = actual.shape
    fg_diff = np.flatnonzero((a == 0) != (b == 0))
    if fg_diff.size:
        i = fg_diff[0]
        return (
            f"{fg_diff.size} pixel(s) differ in foreground/background; first at "
            f"{_at(i, shape)}: label {a[i]}, expected {b[i]}"
        )
    fg = a != 0
    a, b = a[fg], b[fg]
    idx = np.flatnonzero(fg)
    if a.size == 0:
        return None
    pairs, first = np.unique(a * (b.max() + 1) + b, return_index=True)
    pa, pb = pairs // (b.max() + 1), pairs % (b.max() + 1)
    ua, count_a = np.unique(pa, return_counts=True)
    if (count_a > 1).any():
        label = ua[np.argmax(count_a > 1)]
        where = idx[first[pa == label][:2]]
        coords = [_at(i, shape) for i in where]
        return (
            f"label {label} covers pixels of {count_a.max()} expected components "
            f"(components merged), e.g. at {coords}"
        )
    ub, count_b = np.unique(pb, return_counts=True)
    if (count_b > 1).any():
        label = ub[np.argmax(count_b > 1)]
        where = idx[first[pb == label][:2]]
        coords = [_at(i, shape) for i in where]
        return (
            f"expected component {label} is split over {count_b.max()} labels "
            f"(component split), e.g. at {coords}"
        )
    return None


def assert_same_partition(actual: np.ndarray, expected: np.ndarray, context: str = "") -> None:
    why = partition_mismatch(actual, expected)
    if why is not None:
        raise AssertionError(f"{context}: not the expected partition: {why}")


def assert_labels_equal(actual: np.ndarray, expected: np.ndarray, context: str = "") -> None:
    """Same partition first (clear message), then exact values (raster-order numbering)."""
    assert_same_partition(actual, expected, context)
    actual = np.asarray(actual)
    if not np.array_equal(actual.astype(np.int64), np.asarray(expected).astype(np.int64)):
        diff = np.flatnonzero(actual.astype(np.int64).ravel() != expected.astype(np.int64).ravel())
        i = diff[0]
        raise AssertionError(
            f"{context}: same partition, but numbered differently (not canonical raster "
            f"order): {diff.size} pixel(s) differ, first at {_at(i, actual.shape)}: "
            f"{actual.ravel()[i]} != expected {expected.ravel()[i]}"
        )


def assert_array_exact(actual, expected, dtype, name: str, context: str = "") -> None:
    """`actual` is a numpy array of `dtype` equal (NaN == NaN, bit-exact) to `expected`."""
    assert isinstance(actual, np.ndarray), f"{context}: {name} is {type(actual)}, not ndarray"
    assert actual.dtype == np.dtype(dtype), f"{context}: {name} dtype {actual.dtype} != {dtype}"
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, (
        f"{context}: {name} shape {actual.shape} != expected {expected.shape}"
    )
    equal = np.array_equal(actual, expected, equal_nan=actual.dtype.kind == "f")
    if not equal:
        bad = np.argwhere(
            ~((actual == expected) | (np.isnan(actual) & np.isnan(expected)))
            if actual.dtype.kind == "f"
            else actual != expected
        )
        first = tuple(int(v) for v in bad[0])
        raise AssertionError(
            f"{context}: {name} differs at {len(bad)} place(s), first at {first}: "
            f"{actual[first].item()!r} != expected {expected[first].item()!r}"
        )


# --------------------------------------------------------------------------------------------
# Checks of the three entry points against an oracle (host results, numpy)
# --------------------------------------------------------------------------------------------


def check_label_result(result, oracle: Oracle, shape, context: str) -> None:
    assert isinstance(result, tuple) and len(result) == 2, f"{context}: label returned {result!r}"
    labels, n = result
    assert type(n) is int, f"{context}: n is {type(n).__name__}, not int"
    assert isinstance(labels, np.ndarray), f"{context}: labels is {type(labels)}"
    assert labels.dtype == np.uint32, f"{context}: labels dtype {labels.dtype} != uint32"
    assert labels.shape == tuple(shape), f"{context}: labels shape {labels.shape} != {shape}"
    assert_labels_equal(labels, oracle.labels, context)
    assert n == oracle.n, f"{context}: n = {n}, expected {oracle.n}"


def expected_cv_stats(oracle: Oracle):
    """OpenCV's stats and centroids; row 0 of a background-less image as OpenCV 5 writes it
    (earlier OpenCV wrote an undefined box there)."""
    stats = oracle.cv_stats.copy()
    centroids = oracle.cv_centroids.copy()
    if not oracle.has_background:
        stats[0] = [-1, 2**31 - 1, 0, 0, 0]
        centroids[0] = np.nan
    return stats, centroids


def check_stats_result(result, oracle: Oracle, shape, context: str) -> None:
    assert isinstance(result, tuple) and len(result) == 4, (
        f"{context}: connected_components_with_stats returned {type(result)} of "
        f"{len(result) if isinstance(result, tuple) else '?'} items"
    )
    n, labels, stats, centroids = result
    assert type(n) is int, f"{context}: n is {type(n).__name__}, not int"
    assert n == oracle.cv_n, f"{context}: n = {n}, expected {oracle.cv_n} (background included)"
    assert isinstance(labels, np.ndarray), f"{context}: labels is {type(labels)}"
    assert labels.dtype == np.int32, f"{context}: labels dtype {labels.dtype} != int32"
    assert labels.shape == tuple(shape), f"{context}: labels shape {labels.shape} != {shape}"
    assert_labels_equal(labels, oracle.labels, context)
    want_stats, want_centroids = expected_cv_stats(oracle)
    assert_array_exact(stats, want_stats, np.int32, "stats", context)
    assert_array_exact(centroids, want_centroids, np.float64, "centroids", context)


def check_features(features, oracle: Oracle, context: str, require_numpy: bool = True) -> None:
    assert isinstance(features, ccl.Features), f"{context}: analyze returned {type(features)}"
    assert tuple(features._fields) == FEATURE_FIELDS
    ref = oracle.features
    for name, dtype in (
        ("area", np.uint32),
        ("x_min", np.uint32),
        ("y_min", np.uint32),
        ("x_max", np.uint32),
        ("y_max", np.uint32),
        ("sum_x", np.uint64),
        ("sum_y", np.uint64),
        ("centroids", np.float64),
    ):
        value = getattr(features, name)
        if not require_numpy:
            value = to_numpy(value, dtype)
        assert_array_exact(value, getattr(ref, name), dtype, name, context)
    # The same numbers as OpenCV's row 1.. (bit-identical centroids: both divide sum by area).
    if oracle.n:
        assert np.array_equal(
            to_numpy(features.centroids, np.float64), oracle.cv_centroids[1:]
        ), f"{context}: centroids differ from OpenCV's"


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def components_json():
    return real_component_counts()


def cc3d_reference():
    """cc3d, the reference the class-map and clean-up tests compare with; a test that needs it
    is skipped, with the reason, where it is not installed (CI installs it; a GPU machine may
    not, and its other tests should still run)."""
    return pytest.importorskip("cc3d")


def gpu_module(name: str):
    """``cupy`` or ``torch`` where it is installed and sees a CUDA device, else None (the GPU
    tests skip)."""
    try:
        if name == "cupy":
            import cupy

            return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
        import torch

        return torch if torch.cuda.is_available() else None
    except Exception:  # not installed, or no driver / device
        return None
