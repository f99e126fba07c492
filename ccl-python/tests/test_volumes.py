"""`ccl` on volumes (3-D arrays, ``a[z, y, x]``) gives exactly scipy's and cc3d's results.

What this proves, for host volumes of shape (depth, height, width):

* `ccl.label` returns `scipy.ndimage.label`'s labels and count exactly, with the structures
  6 = `generate_binary_structure(3, 1)`, 18 = `(3, 2)` and 26 = `(3, 3)`: the same partition
  and the same numbering (raster order of each component's first voxel, z then y then x), as
  uint32 labels and a Python int; `cc3d.connected_components(..., connectivity=c)` finds the
  same components (compared after renumbering in raster order: cc3d numbers C-ordered arrays as
  scipy does, Fortran-ordered ones in another order);
* `ccl.analyze` returns a `VolumeFeatures` equal to the features of scipy's labels;
* `ccl.statistics` returns exactly `cc3d.statistics` of those labels (dict, dtypes, slices,
  bit-identical centroids, row 0 the background), with and without `no_slice_conversion`, of
  volumes and of images; the one documented difference is the bounding box of a missing
  background in volumes of more than 65535 voxels, where cc3d converts its sentinel to slices;
* on random volumes of densities 0..100 % (among them the site percolation thresholds of 26-,
  18- and 6-connectivity, about 9.7, 13.7 and 31.2 %), pattern volumes, and edge shapes (1x1xN,
  Nx1x1, 1xNx1, sides over 65535, empty along any axis, all-zero, all-one), with the default
  algorithm and with every available algorithm that labels volumes, by name;
* for every dtype, and layouts (Fortran, transposed, strided, windows and padded rows read in
  place, negative strides, broadcasts), without modifying the input;
* `out=` reused across volumes of one size and, as views of one buffer, of several sizes;
* the errors: a volume with 4 or 8, an image with 6, 18 or 26, arrays of other ranks, a wrong
  `out`, OpenCV's functions given a volume, a variant that does not label volumes, GPU arrays.
"""

from __future__ import annotations

import functools
import zlib
from dataclasses import dataclass

import numpy as np
import pytest

import ccl
from conftest import (
    ALGORITHMS,
    CONNECTIVITIES,
    DTYPES,
    SMALL_CASES,
    assert_array_exact,
    assert_labels_equal,
    assert_same_partition,
    case_image,
    case_oracle,
    encode,
    scipy_label,
    to_numpy,
)

ndimage = pytest.importorskip("scipy.ndimage")

VOLUME_CONNECTIVITIES = (6, 18, 26)

VOLUME_FEATURE_FIELDS = (
    "area",
    "x_min",
    "y_min",
    "z_min",
    "x_max",
    "y_max",
    "z_max",
    "sum_x",
    "sum_y",
    "sum_z",
    "centroids",
)

STATISTICS_KEYS = ["voxel_counts", "bounding_boxes", "centroids"]

#: Volumes without voxels: a 0 along any axis.
EMPTY_SHAPES = [(0, 3, 4), (3, 0, 4), (3, 4, 0), (0, 0, 0), (0, 1, 1), (1, 1, 0)]


@pytest.fixture(scope="module")
def cc3d():
    return pytest.importorskip("cc3d")


def volume_algorithms(task: str, connectivity: int):
    """The available variants that perform `task` on volumes with `connectivity`."""
    return [
        info.name
        for info in ALGORITHMS
        if info.available and task in info.tasks and connectivity in info.connectivities
    ]


# --------------------------------------------------------------------------------------------
# Volumes
# --------------------------------------------------------------------------------------------


def random_volume(shape, density: float, granularity: int, seed: int) -> np.ndarray:
    """A bool volume of `shape` made of g x g x g cells, each set with probability density %."""
    rng = np.random.default_rng(seed)
    g = granularity
    cells = rng.random(tuple((s + g - 1) // g for s in shape)) < density / 100.0
    for axis in range(3):
        cells = np.repeat(cells, g, axis=axis)
    d, h, w = shape
    return cells[:d, :h, :w].copy()


def _grid(shape):
    return np.indices(shape)  # z, y, x


def checkerboard(shape, cell: int = 1):
    z, y, x = _grid(shape)
    return (z // cell + y // cell + x // cell) % 2 == 0


def layers(shape, axis: int, period: int = 2):
    """Planes perpendicular to `axis` (0 = z), one voxel thick, `period` apart."""
    return _grid(shape)[axis] % period == 0


def rods(shape, axis: int):
    """Lines along `axis`, on a 2-voxel grid of the two other axes."""
    others = [c for a, c in enumerate(_grid(shape)) if a != axis]
    return (others[0] % 2 == 0) & (others[1] % 2 == 0)


def diagonal_lines(shape, period: int = 4):
    """Lines of voxels touching by their corners only, (1, 1, 1) apart: 26-connected lines."""
    z, y, x = _grid(shape)
    return ((x - y) % period == 0) & ((y - z) % period == 0)


def edge_diagonals(shape, period: int = 3):
    """Lines in each second slice whose voxels touch by edges: 18- and 26-connected lines."""
    z, y, x = _grid(shape)
    return ((x + y) % period == 0) & (z % 2 == 0)


def diagonal_planes(shape, period: int = 3):
    z, y, x = _grid(shape)
    return (x + y + z) % period == 0


def cube_shells(shape):
    """Concentric cube shells one voxel thick, one voxel apart."""
    z, y, x = _grid(shape)
    d, h, w = shape
    return np.maximum.reduce([abs(z - d // 2), abs(y - h // 2), abs(x - w // 2)]) % 2 == 0


def sphere_shells(shape):
    """Concentric spheres one voxel thick, where the connectivities disagree."""
    z, y, x = _grid(shape)
    d, h, w = shape
    radius = np.sqrt((z - (d - 1) / 2) ** 2 + (y - (h - 1) / 2) ** 2 + (x - (w - 1) / 2) ** 2)
    return np.floor(radius).astype(np.int64) % 3 == 0


def snake(shape):
    """One path winding through every second row of every second slice, down and back up:
    one component in every connectivity, whose runs merge far from where they start."""
    d, h, w = shape
    volume = np.zeros(shape, bool)
    for z in range(0, d, 2):
        volume[z, 0::2, :] = True
        for row in range(1, h, 2):
            volume[z, row, w - 1 if (row // 2) % 2 == 0 else 0] = True
        if z + 1 < d:
            last = (h - 1) // 2 * 2
            end = w - 1 if (last // 2) % 2 == 0 else 0
            volume[z + 1, last, end] = True
    return volume


def comb(shape):
    """The two interleaved combs of the image tests, extruded along z: two components in every
    connectivity (at least 5 rows), whose teeth merge only at the far end of each slice."""
    d, h, w = shape
    volume = np.zeros(shape, bool)
    volume[:, 0, :] = True
    volume[:, h - 1, :] = True
    volume[:, 0 : h - 2, 0::4] = True
    volume[:, 2:h, 2::4] = True
    return volume


def frame(shape):
    """The 12 edges of the box."""
    z, y, x = _grid(shape)
    d, h, w = shape
    on = [(z == 0) | (z == d - 1), (y == 0) | (y == h - 1), (x == 0) | (x == w - 1)]
    return (on[0] & on[1]) | (on[0] & on[2]) | (on[1] & on[2])


def single_voxel(shape, z, y, x):
    volume = np.zeros(shape, bool)
    volume[z % shape[0], y % shape[1], x % shape[2]] = True
    return volume


def holes(shape):
    """All foreground but three background voxels: the background's box is theirs."""
    volume = np.ones(shape, bool)
    d, h, w = shape
    volume[d // 3, h - 1, w // 2] = volume[d // 2, 1 % h, w - 1] = volume[d - 1, h // 2, 1 % w] = 0
    return volume


@dataclass(frozen=True)
class VolumeCase:
    id: str
    make: object  # () -> bool volume


def _random_case(shape, density, granularity) -> VolumeCase:
    d, h, w = shape
    case_id = f"random-{d}x{h}x{w}-d{density}-g{granularity}"
    seed = zlib.crc32(case_id.encode())
    return VolumeCase(case_id, functools.partial(random_volume, shape, density, granularity, seed))


#: Densities around the site percolation thresholds of 26-, 18- and 6-connectivity (9.7, 13.7
#: and 31.2 %), and others from empty to full.
DENSITIES = (0, 5, 9.7, 13.7, 20, 31.2, 50, 70, 95, 100)
RANDOM_SHAPES = (
    (1, 1, 1),
    (1, 1, 97),
    (97, 1, 1),
    (1, 97, 1),
    (2, 3, 5),
    (5, 1, 60),
    (17, 23, 29),
    (32, 32, 32),
    (7, 64, 9),
    (40, 33, 3),
)
RANDOM_CASES = tuple(
    _random_case(shape, density, granularity)
    for shape in RANDOM_SHAPES
    for density in DENSITIES
    for granularity in (1, 3)
)
#: Larger volumes at the thresholds, and sides over 65535 (cc3d's uint32 boxes).
LARGE_CASES = tuple(
    _random_case(shape, density, 1)
    for shape, densities in [
        ((48, 64, 80), (9.7, 13.7, 31.2)),
        ((1, 1, 70_000), (50,)),
        ((70_000, 1, 1), (50,)),
        ((1, 70_000, 1), (50,)),
    ]
    for density in densities
)


def _pattern_cases():
    cases = []
    for shape in ((13, 17, 19), (8, 8, 8), (4, 30, 25)):
        tag = "x".join(map(str, shape))
        makers = {
            "checkerboard": functools.partial(checkerboard, shape),
            "checkerboard2": functools.partial(checkerboard, shape, 2),
            "layers-z": functools.partial(layers, shape, 0),
            "layers-y": functools.partial(layers, shape, 1),
            "layers-x": functools.partial(layers, shape, 2),
            "rods-z": functools.partial(rods, shape, 0),
            "rods-y": functools.partial(rods, shape, 1),
            "rods-x": functools.partial(rods, shape, 2),
            "diagonal-lines": functools.partial(diagonal_lines, shape),
            "edge-diagonals": functools.partial(edge_diagonals, shape),
            "diagonal-planes": functools.partial(diagonal_planes, shape),
            "cube-shells": functools.partial(cube_shells, shape),
            "sphere-shells": functools.partial(sphere_shells, shape),
            "snake": functools.partial(snake, shape),
            "comb": functools.partial(comb, shape),
            "frame": functools.partial(frame, shape),
            "holes": functools.partial(holes, shape),
            "single-first": functools.partial(single_voxel, shape, 0, 0, 0),
            "single-last": functools.partial(single_voxel, shape, -1, -1, -1),
            "single-middle": functools.partial(
                single_voxel, shape, shape[0] // 2, shape[1] // 2, shape[2] // 2
            ),
            "zeros": functools.partial(np.zeros, shape, bool),
            "ones": functools.partial(np.ones, shape, bool),
        }
        cases += [VolumeCase(f"{name}-{tag}", make) for name, make in makers.items()]
    for shape in ((1, 1, 70), (70, 1, 1), (1, 70, 1), (1, 1, 1), (2, 1, 2)):
        tag = "x".join(map(str, shape))
        cases += [
            VolumeCase(f"checkerboard-{tag}", functools.partial(checkerboard, shape)),
            VolumeCase(f"layers-x3-{tag}", functools.partial(layers, shape, 2, 3)),
            VolumeCase(f"layers-z3-{tag}", functools.partial(layers, shape, 0, 3)),
            VolumeCase(f"zeros-{tag}", functools.partial(np.zeros, shape, bool)),
            VolumeCase(f"ones-{tag}", functools.partial(np.ones, shape, bool)),
        ]
    # More than 65535 voxels without background: cc3d's one artifact (see check_statistics).
    cases.append(VolumeCase("ones-1x300x300", functools.partial(np.ones, (1, 300, 300), bool)))
    cases.append(VolumeCase("ones-41x41x41", functools.partial(np.ones, (41, 41, 41), bool)))
    cases.append(VolumeCase("snake-9x21x33", functools.partial(snake, (9, 21, 33))))
    return cases


PATTERN_CASES = tuple(_pattern_cases())
ALL_CASES = RANDOM_CASES + LARGE_CASES + PATTERN_CASES
#: The smaller set, for each named algorithm.
SMALL_VOLUME_CASES = tuple(
    _random_case(shape, density, 1)
    for shape in ((1, 1, 97), (97, 1, 1), (1, 97, 1), (17, 23, 29), (32, 32, 32))
    for density in (0, 9.7, 13.7, 31.2, 60, 100)
) + PATTERN_CASES

_CASES = {case.id: case for case in ALL_CASES + SMALL_VOLUME_CASES}
assert len({case.id for case in ALL_CASES}) == len(ALL_CASES), "duplicate case ids"


@functools.lru_cache(maxsize=None)
def case_volume(case_id: str) -> np.ndarray:
    """The case's bool volume (cached, read-only: tests pass copies or views of copies)."""
    volume = np.ascontiguousarray(_CASES[case_id].make(), dtype=bool)
    assert volume.ndim == 3 and volume.size > 0, case_id
    volume.flags.writeable = False
    return volume


# --------------------------------------------------------------------------------------------
# Oracles: scipy's labels, their features, cc3d's components and statistics
# --------------------------------------------------------------------------------------------


def canonical(labels: np.ndarray) -> np.ndarray:
    """`labels` renumbered 1..N in raster order of each component's first voxel."""
    flat = np.asarray(labels).ravel().astype(np.int64)
    foreground = np.flatnonzero(flat)
    values, first = np.unique(flat[foreground], return_index=True)
    mapping = np.zeros(int(flat.max(initial=0)) + 1, np.int64)
    mapping[values[np.argsort(first)]] = np.arange(1, len(values) + 1)
    return mapping[flat].reshape(np.shape(labels))


@dataclass(frozen=True)
class VolumeOracle:
    n: int
    labels: np.ndarray  # scipy's, int32 (D, H, W)
    features: dict  # the VolumeFeatures fields of scipy's labels


def features_of(labels: np.ndarray, n: int) -> dict:
    """Area, inclusive bounding box, coordinate sums and centroids of labels 1..n."""
    flat = labels.ravel().astype(np.int64)
    z, y, x = (c.ravel() for c in np.indices(labels.shape))
    area = np.bincount(flat, minlength=n + 1)[1:]
    # Float weights sum exactly here: every partial sum is an integer far below 2**53.
    sums = {a: np.bincount(flat, weights=c, minlength=n + 1)[1:] for a, c in zip("xyz", (x, y, z))}
    bounds = {f"{a}_{m}": np.zeros(n, np.uint32) for a in "xyz" for m in ("min", "max")}
    for i, slices in enumerate(ndimage.find_objects(labels.astype(np.int32), max_label=n)):
        assert slices is not None, f"label {i + 1} has no voxel"
        for a, s in zip("zyx", slices):
            bounds[f"{a}_min"][i], bounds[f"{a}_max"][i] = s.start, s.stop - 1
    area_f = area.astype(np.float64)
    centroids = np.stack([sums[a] / area_f for a in "xyz"], axis=1).reshape(n, 3)
    return {
        "area": area.astype(np.uint32),
        **bounds,
        **{f"sum_{a}": sums[a].astype(np.uint64) for a in "xyz"},
        "centroids": centroids,
    }


def compute_volume_oracle(binary: np.ndarray, connectivity: int) -> VolumeOracle:
    labels, n = scipy_label(binary, connectivity)
    return VolumeOracle(n=n, labels=labels, features=features_of(labels, n))


@functools.lru_cache(maxsize=None)
def case_volume_oracle(case_id: str, connectivity: int) -> VolumeOracle:
    return compute_volume_oracle(case_volume(case_id), connectivity)


def check_cc3d_components(cc3d, binary: np.ndarray, oracle, connectivity: int, context: str):
    """cc3d finds the oracle's components (numbered in its own order)."""
    # As 0 / 1 bytes, which cc3d labels by value: its binary path (bool input) of cc3d 4.1.1
    # fails on some 1 x 1 x N volumes in 26-connectivity ("Label 26 cannot be mapped to
    # union-find array of length 26"). The components of the value 1 are the same.
    labels, n = cc3d.connected_components(
        np.array(binary, np.uint8), connectivity=connectivity, return_N=True
    )
    assert n == oracle.n, f"{context}: cc3d found {n} components, scipy {oracle.n}"
    assert_same_partition(labels, oracle.labels, f"{context} cc3d vs scipy")
    assert np.array_equal(canonical(labels), oracle.labels), f"{context}: cc3d vs scipy"


def expected_statistics(cc3d, labels: np.ndarray, no_slice_conversion: bool = False) -> dict:
    return cc3d.statistics(labels.astype(np.uint32), no_slice_conversion=no_slice_conversion)


# --------------------------------------------------------------------------------------------
# Checks of the results
# --------------------------------------------------------------------------------------------


def check_volume_labels(result, oracle, shape, context: str) -> None:
    assert isinstance(result, tuple) and len(result) == 2, f"{context}: label returned {result!r}"
    labels, n = result
    assert type(n) is int, f"{context}: n is {type(n).__name__}, not int"
    assert isinstance(labels, np.ndarray), f"{context}: labels is {type(labels)}"
    assert labels.dtype == np.uint32, f"{context}: labels dtype {labels.dtype} != uint32"
    assert labels.shape == tuple(shape), f"{context}: labels shape {labels.shape} != {shape}"
    assert_labels_equal(labels, oracle.labels, context)
    assert n == oracle.n, f"{context}: n = {n}, expected {oracle.n}"


def check_volume_features(features, oracle, context: str, require_numpy: bool = True) -> None:
    assert isinstance(features, ccl.VolumeFeatures), f"{context}: analyze gave {type(features)}"
    assert tuple(features._fields) == VOLUME_FEATURE_FIELDS
    for name in VOLUME_FEATURE_FIELDS:
        expected = oracle.features[name]
        value = getattr(features, name)
        if not require_numpy:
            value = to_numpy(value, expected.dtype)
        assert_array_exact(value, expected, expected.dtype, name, context)


def check_statistics(actual, expected, shape, context: str) -> None:
    """`actual` is cc3d's `expected`: the same keys, dtypes, values and slices; bit-identical
    centroids (NaN where cc3d has NaN)."""
    assert isinstance(actual, dict), f"{context}: statistics returned {type(actual)}"
    assert list(actual) == STATISTICS_KEYS, f"{context}: keys {list(actual)}"
    if expected["voxel_counts"] is None:
        assert all(actual[k] is None for k in STATISTICS_KEYS), f"{context}: {actual}"
        return
    counts = expected["voxel_counts"]
    assert_array_exact(actual["voxel_counts"], counts, counts.dtype, "voxel_counts", context)
    centroids = expected["centroids"]
    assert_array_exact(actual["centroids"], centroids, centroids.dtype, "centroids", context)
    boxes, want = actual["bounding_boxes"], expected["bounding_boxes"]
    if isinstance(want, np.ndarray):
        assert_array_exact(boxes, want, want.dtype, "bounding_boxes", context)
        return
    assert isinstance(boxes, list), f"{context}: bounding_boxes is {type(boxes)}"
    want = list(want)
    if counts[0] == 0 and want[0] is not None:
        # cc3d's one artifact: a label without voxels has a sentinel box (uint16 max, 0), which
        # cc3d turns into None only where the volume has fewer voxels than the sentinel; ccl's
        # entry is None always.
        assert int(np.prod(shape)) > 65535, f"{context}: cc3d's box 0 is {want[0]}"
        assert want[0] == (slice(65535, 1),) * len(shape), f"{context}: {want[0]}"
        want[0] = None
    assert len(boxes) == len(want), f"{context}: {len(boxes)} boxes, cc3d {len(want)}"
    for i, (box, expected_box) in enumerate(zip(boxes, want)):
        assert box == expected_box, f"{context}: box {i} is {box}, cc3d's {expected_box}"
        if box is not None:
            assert all(type(s.start) is int and type(s.stop) is int for s in box), context


def check_label_and_analyze(volume, oracle, connectivity, context, algorithm=None):
    """label and analyze of `volume`, which they leave as it was."""
    before = np.array(volume, copy=True)
    result = ccl.label(volume, connectivity, algorithm=algorithm)
    check_volume_labels(result, oracle, volume.shape, context)
    features = ccl.analyze(volume, connectivity, algorithm=algorithm)
    check_volume_features(features, oracle, context)
    assert np.array_equal(volume, before, equal_nan=before.dtype.kind == "f"), (
        f"{context}: the input was modified"
    )


def check_statistics_of(cc3d, volume, oracle, connectivity, context, algorithm=None):
    """statistics of `volume`, with slices and without, which leave it as it was."""
    before = np.array(volume, copy=True)
    for no_slice_conversion in (False, True):
        check_statistics(
            ccl.statistics(
                volume, connectivity, algorithm=algorithm, no_slice_conversion=no_slice_conversion
            ),
            expected_statistics(cc3d, oracle.labels, no_slice_conversion),
            volume.shape,
            f"{context} no_slice_conversion={no_slice_conversion}",
        )
    assert np.array_equal(volume, before, equal_nan=before.dtype.kind == "f"), (
        f"{context}: the input was modified"
    )


# --------------------------------------------------------------------------------------------
# Every volume with the default algorithm, fewer with each named one
# --------------------------------------------------------------------------------------------


def _matrix(task: str):
    params = []
    for connectivity in VOLUME_CONNECTIVITIES:
        for case in ALL_CASES:
            params.append(
                pytest.param(None, connectivity, case.id, id=f"default-c{connectivity}-{case.id}")
            )
        for name in volume_algorithms(task, connectivity):
            for case in SMALL_VOLUME_CASES:
                case_id = f"{name}-c{connectivity}-{case.id}"
                params.append(pytest.param(name, connectivity, case.id, id=case_id))
    return params


def _context(algorithm, connectivity, case_id, extra=""):
    return f"[{algorithm or 'default'}, connectivity {connectivity}, {case_id}{extra}]"


@pytest.mark.parametrize("algorithm, connectivity, case_id", _matrix("label"))
def test_label_matches_scipy(algorithm, connectivity, case_id):
    volume = case_volume(case_id).copy()
    oracle = case_volume_oracle(case_id, connectivity)
    context = _context(algorithm, connectivity, case_id)
    result = ccl.label(volume, connectivity=connectivity, algorithm=algorithm)
    check_volume_labels(result, oracle, volume.shape, context)


@pytest.mark.parametrize("connectivity", VOLUME_CONNECTIVITIES)
@pytest.mark.parametrize("case_id", [case.id for case in ALL_CASES])
def test_cc3d_finds_the_components_of_scipy_and_ccl(case_id, connectivity, cc3d):
    """The second oracle: cc3d's components are scipy's (so ccl's, by test_label_matches_scipy),
    numbered in its own order."""
    oracle = case_volume_oracle(case_id, connectivity)
    context = _context(None, connectivity, case_id)
    check_cc3d_components(cc3d, case_volume(case_id), oracle, connectivity, context)


@pytest.mark.parametrize("algorithm, connectivity, case_id", _matrix("analyze"))
def test_analyze_matches_the_features_of_scipy_s_labels(algorithm, connectivity, case_id):
    volume = case_volume(case_id).copy()
    features = ccl.analyze(volume, connectivity=connectivity, algorithm=algorithm)
    context = _context(algorithm, connectivity, case_id)
    check_volume_features(features, case_volume_oracle(case_id, connectivity), context)


@pytest.mark.parametrize("algorithm, connectivity, case_id", _matrix("analyze"))
def test_statistics_match_cc3d(algorithm, connectivity, case_id, cc3d):
    volume = case_volume(case_id).copy()
    labels = case_volume_oracle(case_id, connectivity).labels
    for no_slice_conversion in (False, True):
        context = _context(algorithm, connectivity, case_id, f", slices {not no_slice_conversion}")
        actual = ccl.statistics(
            volume, connectivity, algorithm=algorithm, no_slice_conversion=no_slice_conversion
        )
        expected = expected_statistics(cc3d, labels, no_slice_conversion)
        check_statistics(actual, expected, volume.shape, context)


def test_the_statistics_are_those_of_ccl_s_own_labels(cc3d):
    """ccl.statistics(a, c) == cc3d.statistics(ccl.label(a, c)[0]), by definition."""
    volume = case_volume("random-32x32x32-d31.2-g1")
    for connectivity in VOLUME_CONNECTIVITIES:
        labels, _ = ccl.label(volume, connectivity)
        check_statistics(
            ccl.statistics(volume, connectivity),
            cc3d.statistics(labels),
            volume.shape,
            f"[own labels, c{connectivity}]",
        )


def test_volume_variants_are_listed():
    """cpu-uf, cpu-rle and cpu-rle-1t label and analyze volumes in every connectivity."""
    by_name = {info.name: info for info in ccl.algorithms()}
    for name in ("cpu-uf", "cpu-rle", "cpu-rle-1t"):
        info = by_name[name]
        assert set(VOLUME_CONNECTIVITIES) <= set(info.connectivities), info
        assert {"label", "analyze"} <= set(info.tasks), info
        for connectivity in VOLUME_CONNECTIVITIES:
            assert name in volume_algorithms("label", connectivity)


def test_labels_are_identical_across_volume_algorithms():
    volume = random_volume((37, 41, 43), 31.2, 1, seed=7)
    for connectivity in VOLUME_CONNECTIVITIES:
        reference, n_ref = ccl.label(volume, connectivity, algorithm="cpu-uf")
        for name in volume_algorithms("label", connectivity):
            for _ in range(2):
                labels, n = ccl.label(volume, connectivity, algorithm=name)
                assert n == n_ref, f"{name}, c{connectivity}: {n} != cpu-uf's {n_ref}"
                assert_labels_equal(labels, reference, f"[{name} vs cpu-uf, c{connectivity}]")


# --------------------------------------------------------------------------------------------
# Statistics of images (2-D), against cc3d
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("case_id", [case.id for case in SMALL_CASES])
def test_statistics_of_images_match_cc3d(case_id, connectivity, cc3d):
    image = case_image(case_id).copy()
    labels = case_oracle(case_id, connectivity).labels
    for no_slice_conversion in (False, True):
        context = f"[image {case_id}, c{connectivity}, slices {not no_slice_conversion}]"
        actual = ccl.statistics(image, connectivity, no_slice_conversion=no_slice_conversion)
        expected = expected_statistics(cc3d, labels, no_slice_conversion)
        check_statistics(actual, expected, image.shape, context)


@pytest.mark.parametrize("shape", [(1, 70_000), (70_000, 1), (300, 300), (1, 1)])
def test_statistics_of_wide_and_full_images_match_cc3d(shape, cc3d):
    for image in (random_volume((1,) + shape, 50, 1, seed=3)[0], np.ones(shape, bool)):
        for connectivity in CONNECTIVITIES:
            labels, _ = scipy_label(image, connectivity)
            for no_slice_conversion in (False, True):
                check_statistics(
                    ccl.statistics(image, connectivity, no_slice_conversion=no_slice_conversion),
                    expected_statistics(cc3d, labels, no_slice_conversion),
                    shape,
                    f"[image {shape}, c{connectivity}, {image.mean():.2f} full]",
                )


@pytest.mark.parametrize("shape", EMPTY_SHAPES[:3] + [(0, 4), (4, 0)])
def test_statistics_of_empty_arrays_match_cc3d(shape, cc3d):
    expected = cc3d.statistics(np.zeros(shape, np.uint32))
    check_statistics(ccl.statistics(np.zeros(shape, bool)), expected, shape, f"[empty {shape}]")


def test_statistics_layout_by_hand():
    """Row 0 is the background; every axis in the array's order (z, y, x); boxes inclusive in
    the array form, slices otherwise."""
    volume = np.zeros((2, 3, 4), np.uint8)
    volume[0, 1, 1:3] = 1  # label 1: two voxels
    volume[1, 2, 3] = 1  # label 2: one voxel
    stats = ccl.statistics(volume, 6)
    assert stats["voxel_counts"].tolist() == [21, 2, 1]
    assert stats["voxel_counts"].dtype == np.uint32
    assert stats["bounding_boxes"] == [
        (slice(0, 2), slice(0, 3), slice(0, 4)),
        (slice(0, 1), slice(1, 2), slice(1, 3)),
        (slice(1, 2), slice(2, 3), slice(3, 4)),
    ]
    assert stats["centroids"][1:].tolist() == [[0.0, 1.0, 1.5], [1.0, 2.0, 3.0]]
    arrays = ccl.statistics(volume, 6, no_slice_conversion=True)
    assert arrays["bounding_boxes"].dtype == np.uint16
    assert arrays["bounding_boxes"].tolist() == [
        [0, 1, 0, 2, 0, 3],
        [0, 0, 1, 1, 1, 2],
        [1, 1, 2, 2, 3, 3],
    ]
    # Without background: cc3d's row of a label without voxels.
    full = ccl.statistics(np.ones((2, 3, 4)), 26)
    assert full["voxel_counts"].tolist() == [0, 24]
    assert full["bounding_boxes"][0] is None and np.isnan(full["centroids"][0]).all()
    full = ccl.statistics(np.ones((2, 3, 4)), 26, no_slice_conversion=True)
    assert full["bounding_boxes"][0].tolist() == [65535, 0] * 3
    # The background's box is where the zeros are.
    holes_only = np.ones((5, 6, 7), bool)
    holes_only[1, 2, 3] = holes_only[3, 4, 1] = False
    stats = ccl.statistics(holes_only)
    assert stats["bounding_boxes"][0] == (slice(1, 4), slice(2, 5), slice(1, 4))
    assert stats["voxel_counts"][0] == 2 and stats["centroids"][0].tolist() == [2.0, 3.0, 2.0]


# --------------------------------------------------------------------------------------------
# Edge shapes: empty volumes, defaults, other array-likes
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("connectivity", (None,) + VOLUME_CONNECTIVITIES)
@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.float32], ids=lambda d: d.__name__)
@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_empty_volumes_have_no_components(shape, dtype, connectivity):
    volume = np.zeros(shape, dtype)
    labels, n = ccl.label(volume, connectivity)
    assert n == 0 and labels.shape == shape and labels.dtype == np.uint32
    expected_n = ndimage.label(volume, ndimage.generate_binary_structure(3, 3))[1]
    assert n == expected_n
    features = ccl.analyze(volume, connectivity)
    assert isinstance(features, ccl.VolumeFeatures)
    assert features.area.shape == (0,) and features.area.dtype == np.uint32
    assert features.sum_z.shape == (0,) and features.sum_z.dtype == np.uint64
    assert features.centroids.shape == (0, 3) and features.centroids.dtype == np.float64
    for no_slice_conversion in (False, True):
        actual = ccl.statistics(volume, connectivity, no_slice_conversion=no_slice_conversion)
        assert actual == {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
    out = np.empty(shape, np.uint32)
    assert ccl.label(volume, connectivity, out=out) == (out, 0)
    base = np.ones((4, 5, 6), np.uint8)
    for view in (base[2:2], base[:, 5:], base[:, :, ::-1][:, :, 6:]):
        assert ccl.label(view, connectivity)[1] == 0


def test_default_connectivity_is_26_for_volumes_and_8_for_images():
    volume = np.zeros((2, 2, 2), np.uint8)
    volume[0, 0, 0] = volume[1, 1, 1] = 1  # corners only: 1 component under 26, 2 under 18
    assert ccl.label(volume)[1] == 1
    assert ccl.label(volume, None)[1] == 1
    assert ccl.label(volume, 18)[1] == 2
    assert ccl.label(volume, connectivity=6, algorithm="cpu-uf")[1] == 2
    assert len(ccl.analyze(volume).area) == 1
    assert len(ccl.analyze(volume, 18, algorithm="cpu-rle-1t").area) == 2
    assert len(ccl.statistics(volume)["voxel_counts"]) == 2
    assert len(ccl.statistics(volume, 6, algorithm="cpu-rle")["voxel_counts"]) == 3
    image = np.eye(4, dtype=np.uint8)
    assert len(ccl.statistics(image)["voxel_counts"]) == 2
    assert len(ccl.statistics(image, 4)["voxel_counts"]) == 5
    assert isinstance(ccl.analyze(image, None), ccl.Features)


def test_nested_lists_are_volumes():
    binary = random_volume((3, 4, 5), 50, 1, seed=8)
    for connectivity in VOLUME_CONNECTIVITIES:
        oracle = compute_volume_oracle(binary, connectivity)
        for as_list in (binary.tolist(), binary.astype(int).tolist()):
            context = f"[list, c{connectivity}]"
            check_volume_labels(ccl.label(as_list, connectivity), oracle, binary.shape, context)
            check_volume_features(ccl.analyze(as_list, connectivity), oracle, context)


def test_torch_cpu_volumes():
    torch = pytest.importorskip("torch")
    label_dtype = torch.uint32 if hasattr(torch, "uint32") else torch.int32
    binary = random_volume((9, 17, 23), 31.2, 1, seed=4)
    base = torch.from_numpy(encode(binary, np.float32, 9))
    for layout, tensor in {
        "C": base.clone(),
        "permuted": base.permute(2, 1, 0).contiguous().permute(2, 1, 0),
        "bool": base != 0,
    }.items():
        for connectivity in VOLUME_CONNECTIVITIES:
            oracle = compute_volume_oracle(binary, connectivity)
            context = f"[torch CPU {layout}, c{connectivity}]"
            labels, n = ccl.label(tensor, connectivity)
            assert isinstance(labels, torch.Tensor) and labels.dtype == label_dtype, context
            check_volume_labels((to_numpy(labels, np.uint32), n), oracle, binary.shape, context)
            features = ccl.analyze(tensor, connectivity)
            check_volume_features(features, oracle, context, require_numpy=False)
            stats = ccl.statistics(tensor, connectivity)
            assert isinstance(stats["voxel_counts"], np.ndarray), context


# --------------------------------------------------------------------------------------------
# Every dtype and layout
# --------------------------------------------------------------------------------------------

VOLUME_LAYOUTS = (
    "C",
    "F",
    "transposed",
    "swapped",
    "strided",
    "window",
    "padded",
    "in-4d",
    "reversed",
    "reversed-window",
)


def _garbage(shape, dtype, seed):
    """Filler around views: about half foreground, so reading it changes the result."""
    return encode(np.random.default_rng(seed).random(shape) < 0.5, dtype, seed + 1)


def with_volume_layout(values: np.ndarray, layout: str, seed: int = 0) -> np.ndarray:
    """An array equal to `values` (C-contiguous, 3-D) laid out in memory as `layout` says.

    F: Fortran order. transposed: the transpose of a C array (x slowest). swapped: z and y
    swapped in memory (slices interleaved with rows). strided: big[::2, ::2, ::3]. window:
    big[1:-1, 1:, 2:-1], and padded: big[:, 1:-1, :w], whose rows are packed and padded (read in
    place where the dtype is a byte). in-4d: one volume of a 4-D array. reversed: every stride
    negative. reversed-window: big[-2::-1, :, 1:]. Voxels of `big` outside the view are garbage.
    """
    d, h, w = values.shape
    dtype = values.dtype
    if layout == "C":
        out = values.copy()
    elif layout == "F":
        out = np.asfortranarray(values)
    elif layout == "transposed":
        out = np.ascontiguousarray(values.transpose(2, 1, 0)).transpose(2, 1, 0)
    elif layout == "swapped":
        out = np.ascontiguousarray(values.transpose(1, 0, 2)).transpose(1, 0, 2)
    elif layout == "strided":
        big = _garbage((2 * d, 2 * h, 3 * w), dtype, seed)
        big[::2, ::2, ::3] = values
        out = big[::2, ::2, ::3]
    elif layout == "window":
        big = _garbage((d + 2, h + 1, w + 3), dtype, seed)
        big[1:-1, 1:, 2:-1] = values
        out = big[1:-1, 1:, 2:-1]
    elif layout == "padded":
        big = _garbage((d, h + 2, w + 5), dtype, seed)
        big[:, 1:-1, :w] = values
        out = big[:, 1:-1, :w]
    elif layout == "in-4d":
        big = _garbage((3, d, h, w), dtype, seed)
        big[1] = values
        out = big[1]
    elif layout == "reversed":
        out = np.ascontiguousarray(values[::-1, ::-1, ::-1])[::-1, ::-1, ::-1]
        assert all(s <= 0 for s in out.strides)
    elif layout == "reversed-window":
        big = _garbage((d + 1, h, w + 1), dtype, seed)
        big[-2::-1, :, 1:] = values
        out = big[-2::-1, :, 1:]
        assert out.strides[0] < 0
    else:
        raise AssertionError(f"unknown layout {layout}")
    assert out.shape == values.shape
    assert np.array_equal(out != 0, values != 0)
    return out


DTYPE_LAYOUT_CASES = (
    "random-17x23x29-d31.2-g1",
    "random-5x1x60-d50-g1",
    "random-1x97x1-d50-g1",
    "snake-8x8x8",
)


def _encoded(case_id, dtype, layout):
    binary = case_volume(case_id)
    seed = zlib.crc32(f"{case_id}/{np.dtype(dtype).str}/{layout}".encode())
    return with_volume_layout(encode(binary, dtype, seed), layout, seed)


@pytest.mark.parametrize("connectivity", VOLUME_CONNECTIVITIES)
@pytest.mark.parametrize("layout", VOLUME_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_and_layout(dtype, layout, connectivity):
    for case_id in DTYPE_LAYOUT_CASES:
        volume = _encoded(case_id, dtype, layout)
        oracle = case_volume_oracle(case_id, connectivity)
        context = f"[default, {np.dtype(dtype).name}, {layout}, c{connectivity}, {case_id}]"
        check_label_and_analyze(volume, oracle, connectivity, context)


@pytest.mark.parametrize("connectivity", VOLUME_CONNECTIVITIES)
@pytest.mark.parametrize("layout", VOLUME_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_and_layout_statistics(dtype, layout, connectivity, cc3d):
    for case_id in DTYPE_LAYOUT_CASES:
        volume = _encoded(case_id, dtype, layout)
        oracle = case_volume_oracle(case_id, connectivity)
        context = f"[default, {np.dtype(dtype).name}, {layout}, c{connectivity}, {case_id}]"
        check_statistics_of(cc3d, volume, oracle, connectivity, context)


def _named_layout_params():
    return [
        pytest.param(name, c, dtype, layout, id=f"{name}-c{c}-{np.dtype(dtype).name}-{layout}")
        for c in VOLUME_CONNECTIVITIES
        for name in volume_algorithms("analyze", c)
        for dtype in (np.bool_, np.uint8, np.int32, np.float32)
        for layout in ("F", "window", "padded", "reversed-window")
    ]


@pytest.mark.parametrize("algorithm, connectivity, dtype, layout", _named_layout_params())
def test_named_algorithm_dtypes_and_layouts(algorithm, connectivity, dtype, layout):
    for case_id in DTYPE_LAYOUT_CASES:
        volume = _encoded(case_id, dtype, layout)
        oracle = case_volume_oracle(case_id, connectivity)
        context = f"[{algorithm}, {np.dtype(dtype).name}, {layout}, c{connectivity}, {case_id}]"
        check_label_and_analyze(volume, oracle, connectivity, context, algorithm)


@pytest.mark.parametrize("algorithm, connectivity, dtype, layout", _named_layout_params())
def test_named_algorithm_dtypes_and_layouts_statistics(
    algorithm, connectivity, dtype, layout, cc3d
):
    for case_id in DTYPE_LAYOUT_CASES:
        volume = _encoded(case_id, dtype, layout)
        oracle = case_volume_oracle(case_id, connectivity)
        context = f"[{algorithm}, {np.dtype(dtype).name}, {layout}, c{connectivity}, {case_id}]"
        check_statistics_of(cc3d, volume, oracle, connectivity, context, algorithm)


def _broadcast_volumes():
    """Views whose slices (or rows) are the same memory."""
    plane = random_volume((1, 13, 17), 40, 1, seed=5)[0].astype(np.uint8)
    row = (np.arange(29) % 4 < 2).astype(np.float32)
    views = [np.broadcast_to(plane, (6, 13, 17)), np.broadcast_to(row, (5, 7, 29))]
    assert all(0 in view.strides for view in views)
    return views


def test_broadcast_volumes_with_zero_strides():
    for view in _broadcast_volumes():
        for connectivity in VOLUME_CONNECTIVITIES:
            oracle = compute_volume_oracle(np.asarray(view) != 0, connectivity)
            context = f"[broadcast strides {view.strides}, c{connectivity}]"
            check_label_and_analyze(view, oracle, connectivity, context)


def test_broadcast_volumes_statistics(cc3d):
    for view in _broadcast_volumes():
        for connectivity in VOLUME_CONNECTIVITIES:
            oracle = compute_volume_oracle(np.asarray(view) != 0, connectivity)
            context = f"[broadcast strides {view.strides}, c{connectivity}]"
            check_statistics_of(cc3d, view, oracle, connectivity, context)


@pytest.mark.parametrize("connectivity", VOLUME_CONNECTIVITIES)
def test_float_special_values(connectivity):
    """-0.0 is background; NaN, +-inf and subnormals are foreground."""
    for dtype in (np.float16, np.float32, np.float64):
        tiny = np.finfo(dtype).smallest_subnormal
        volume = np.array(
            [
                [[-0.0, np.nan, 0.0], [0.0, -0.0, np.inf]],
                [[tiny, 0.0, -0.0], [0.0, -tiny, -np.inf]],
            ],
            dtype=dtype,
        )
        oracle = compute_volume_oracle(volume != 0, connectivity)
        context = f"[float specials, {np.dtype(dtype).name}, c{connectivity}]"
        check_volume_labels(ccl.label(volume, connectivity), oracle, volume.shape, context)
        labels, _ = ccl.label(volume, connectivity)
        assert labels[0, 0, 0] == 0 and labels[0, 1, 1] == 0 and labels[0, 0, 1] != 0, context


# --------------------------------------------------------------------------------------------
# out=
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint32, np.int32])
@pytest.mark.parametrize("connectivity", VOLUME_CONNECTIVITIES)
def test_out_reused_across_volumes_gives_scipy_labels(connectivity, dtype):
    """One array per shape, reused over densities and algorithms, dirty before each call."""
    algorithms = [None] + volume_algorithms("label", connectivity)
    for shape in [(9, 37, 21), (16, 16, 16), (1, 5, 130), (40, 3, 1)]:
        out = np.empty(shape, dtype)
        for algorithm in algorithms:
            for seed, (density, granularity) in enumerate(
                [(0, 1), (9.7, 1), (13.7, 1), (31.2, 1), (60, 3), (100, 1)]
            ):
                volume = random_volume(shape, density, granularity, seed)
                out.fill(-1 if dtype == np.int32 else 0xFFFFFFFF)
                labels, n = ccl.label(volume, connectivity, algorithm=algorithm, out=out)
                assert labels is out
                oracle = compute_volume_oracle(volume, connectivity)
                context = f"{algorithm} {shape} d={density} g={granularity}"
                assert n == oracle.n, context
                assert_labels_equal(out.astype(np.uint32), oracle.labels, context)


def test_one_buffer_reused_across_sizes():
    """Views of one buffer, of volumes of several sizes and of images, in turn."""
    buffer = np.empty(40 * 40 * 40, np.uint32)
    shapes = [(40, 40, 40), (3, 50, 7), (1, 1, 999), (40, 40, 40), (25, 60), (17, 1, 19)]
    for i, shape in enumerate(shapes):
        out = buffer[: int(np.prod(shape))].reshape(shape)
        out.fill(0xDEADBEEF)
        connectivity = (6, 18, 26)[i % 3] if len(shape) == 3 else 8
        binary = random_volume((1,) * (3 - len(shape)) + shape, 31.2, 1, seed=i).reshape(shape)
        labels, n = ccl.label(binary, connectivity, out=out)
        assert labels is out and np.shares_memory(out, buffer)
        expected, expected_n = scipy_label(binary, connectivity)
        assert n == expected_n, shape
        assert_labels_equal(out, expected, f"[buffer view {shape}, c{connectivity}]")


@pytest.mark.parametrize(
    "out, message",
    [
        (np.zeros((4, 5, 3), np.uint32), "shape"),
        (np.zeros((3, 20), np.uint32), "shape"),
        (np.zeros((3, 4, 5, 1), np.uint32), "shape"),
        (np.zeros((3, 4, 5), np.uint16), "dtype"),
        (np.zeros((3, 4, 5), np.int64), "dtype"),
        (np.zeros((3, 4, 5), np.float32), "dtype"),
        (np.zeros((5, 4, 3), np.uint32).T, "C-contiguous"),
        (np.zeros((3, 4, 10), np.uint32)[:, :, ::2], "C-contiguous"),
        (np.zeros((3, 4, 5), np.uint32).tolist(), "numpy array"),
    ],
    ids=["permuted", "2d", "4d", "uint16", "int64", "float32", "transposed", "strided", "list"],
)
def test_out_that_cannot_take_the_labels_is_refused(out, message):
    with pytest.raises(ValueError, match=message):
        ccl.label(np.ones((3, 4, 5), bool), out=out)


def test_out_that_is_read_only_or_the_volume_is_refused():
    out = np.zeros((3, 4, 5), np.uint32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        ccl.label(np.ones((3, 4, 5), bool), out=out)
    out = np.ones((3, 4, 5), np.uint32)
    volume = out.view(np.uint8)[:, :, :5]  # bytes read in place that lie in `out`
    with pytest.raises(ValueError, match="shares memory"):
        ccl.label(volume, out=out)


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

FUNCTIONS = {"label": ccl.label, "analyze": ccl.analyze, "statistics": ccl.statistics}
parametrize_functions = pytest.mark.parametrize("function_name", list(FUNCTIONS))


@parametrize_functions
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_a_volume_with_an_image_s_connectivity_is_refused(function_name, connectivity):
    with pytest.raises(ValueError) as raised:
        FUNCTIONS[function_name](np.ones((2, 3, 4), bool), connectivity)
    assert str(raised.value) == (
        f"connectivity {connectivity} is for 2-D arrays (height, width); this array is 3-D "
        f"(depth, height, width): use 6, 18 or 26"
    )


@parametrize_functions
@pytest.mark.parametrize("connectivity", VOLUME_CONNECTIVITIES)
def test_an_image_with_a_volume_s_connectivity_is_refused(function_name, connectivity):
    with pytest.raises(ValueError) as raised:
        FUNCTIONS[function_name](np.ones((3, 4), bool), connectivity=connectivity)
    assert str(raised.value) == (
        f"connectivity {connectivity} is for 3-D arrays (depth, height, width); this array is "
        f"2-D: use 4 or 8"
    )


@parametrize_functions
@pytest.mark.parametrize(
    "array",
    [np.ones((2, 2, 2, 2), bool), np.ones((1, 3, 4, 5), np.uint8), np.ones((2,) * 5), np.ones(4)],
    ids=["4d", "4d-leading-1", "5d", "1d"],
)
@pytest.mark.parametrize("connectivity", [None, 6, 26])
def test_other_ranks_are_refused(function_name, array, connectivity):
    with pytest.raises(ValueError, match=r"2-D image .*3-D volume .*got \d dimensions"):
        FUNCTIONS[function_name](array, connectivity)


@parametrize_functions
@pytest.mark.parametrize(
    "connectivity", [0, 5, 7, 12, 27, -6, 2**32 + 6, "26", 26.0, True], ids=lambda c: repr(c)
)
def test_bad_connectivity_is_refused(function_name, connectivity):
    with pytest.raises(ValueError, match="connectivity must be 4 or 8 .* or 6, 18 or 26"):
        FUNCTIONS[function_name](np.ones((2, 3, 4), bool), connectivity)


def test_opencv_s_functions_take_images_only():
    volume = np.ones((2, 3, 4), np.uint8)
    for call in (
        lambda: ccl.connected_components_with_stats(volume),
        lambda: ccl.connected_components(volume),
        lambda: ccl.connected_components_with_stats_with_algorithm(volume, 8, ccl.CV_32S, 0),
    ):
        with pytest.raises(ValueError, match="expected a 2-D image.*take 3-D volumes"):
            call()
    for connectivity in VOLUME_CONNECTIVITIES:
        with pytest.raises(ValueError, match="must be 4 or 8 .*6, 18 or 26 of volumes"):
            ccl.connected_components_with_stats(volume, connectivity)
        with pytest.raises(ValueError, match="must be 4 or 8"):
            ccl.connected_components(volume[0], connectivity)


def _image_only_variants():
    names = [info.name for info in ALGORITHMS if 6 not in info.connectivities]
    return names or [pytest.param(None, marks=pytest.mark.skip(reason="all label volumes"))]


@pytest.mark.parametrize("name", _image_only_variants())
@parametrize_functions
def test_a_variant_that_does_not_label_volumes_is_refused(function_name, name):
    """Named for a volume, a variant without the connectivity is a ValueError that says so,
    available here or not (the connectivity is checked first)."""
    info = next(info for info in ALGORITHMS if info.name == name)
    for connectivity in VOLUME_CONNECTIVITIES:
        if connectivity in info.connectivities:
            continue
        with pytest.raises(ValueError, match=f"{name} does not support {connectivity}-conn"):
            FUNCTIONS[function_name](np.ones((2, 3, 4), bool), connectivity, algorithm=name)


@parametrize_functions
def test_unknown_algorithm_is_refused(function_name):
    with pytest.raises(ValueError, match="cpu-rle"):
        FUNCTIONS[function_name](np.ones((2, 3, 4), bool), 6, algorithm="no-such-variant")


class _FakeCudaArray:
    """Claims to lie in GPU memory (``__cuda_array_interface__``), as CuPy arrays do."""

    def __init__(self, shape):
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": "|u1",
            "data": (0, False),
            "version": 3,
        }


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_statistics_refuse_gpu_arrays(shape):
    with pytest.raises(ValueError, match="takes host arrays.*Copy the array to the host"):
        ccl.statistics(_FakeCudaArray(shape))


def _gpu_volumes():
    """CuPy and CUDA torch volumes, where a GPU and the framework are here."""
    volumes = []
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            volumes.append(("cupy", cupy.ones((2, 3, 4), cupy.uint8)))
    except Exception:  # not installed, or no driver / device
        pass
    try:
        import torch

        if torch.cuda.is_available():
            volumes.append(("torch", torch.ones((2, 3, 4), dtype=torch.uint8, device="cuda")))
    except Exception:
        pass
    return volumes


def test_gpu_volumes_label_on_their_device_and_refuse_image_connectivities():
    # test_gpu.py holds every CUDA volume variant to scipy; this checks the
    # framework's array round trip and the errors a 3-D GPU array gets.
    volumes = _gpu_volumes()
    if not volumes:
        pytest.skip("neither CuPy nor torch sees a CUDA device")
    for framework, volume in volumes:
        host = volume.get() if framework == "cupy" else volume.cpu().numpy()
        labels, n = ccl.label(volume)
        back = labels.get() if framework == "cupy" else labels.cpu().numpy()
        assert n == 1
        np.testing.assert_array_equal(back, ccl.label(host)[0])
        for call in (ccl.label, ccl.analyze):
            with pytest.raises(ValueError, match="this array is 3-D"):
                call(volume, 8)
        with pytest.raises(ValueError, match="takes host arrays"):
            ccl.statistics(volume)
