"""The clean-up of class maps: ``classes=True`` of ``ccl.dust``, ``ccl.largest_k`` and
``ccl.keep``, whose components are those of each class apart (``ccl.label_classes``), as cc3d's
``dust`` and ``largest_k`` see a multilabel image.

Compared with cc3d (``dust`` value for value; ``largest_k``'s kept voxels wherever no equal
sizes straddle the cut, cc3d's choice among those being ``argpartition``'s) and with a reference
written here from cc3d's multilabel labels renumbered in raster order (the ranges, then the k
largest, the first of equal sizes, renumbered 1..k); on random class maps of uint8, uint16 and
int32 (negative classes too), images and volumes in every connectivity, and batches image by
image; the default (``classes=False``) against cc3d's ``binary_image=True``; on CuPy arrays and
CUDA torch tensors where a GPU runs, whose results must stay on the device and equal the
host's. The errors: float maps, ``algorithm=`` with ``classes=True``, a negative k.
"""

from __future__ import annotations

import numpy as np
import pytest

import ccl
from conftest import cc3d_reference, cleaned_labels, gpu_module, raster_renumber, to_numpy

CONNECTIVITIES = {2: (4, 8), 3: (6, 18, 26)}
SHAPES = {2: (45, 58), 3: (11, 14, 17)}


def _class_map(shape, seed: int, dtype=np.uint16, density: float = 0.7) -> np.ndarray:
    """Classes on cells of 1, 2 or 3 elements a side (by seed), set with probability
    ``density``: touching classes, specks and blobs. int32 maps hold negative classes too."""
    rng = np.random.default_rng(seed)
    cell = 1 + seed % 3
    classes = [-2, -1, 1, 2, 3] if np.dtype(dtype).kind == "i" else [1, 2, 3, 200]
    cells = tuple(-(-side // cell) for side in shape)
    values = rng.choice(classes, cells) * (rng.random(cells) < density)
    for axis in range(len(shape)):
        values = np.repeat(values, cell, axis=axis)
    values = values[tuple(slice(0, side) for side in shape)]
    specks = rng.random(shape) < 0.05  # single elements of any class, over the blobs
    values = np.where(specks, rng.choice(classes, shape), values)
    return np.ascontiguousarray(values.astype(dtype))


def _raster_labels(values: np.ndarray, connectivity: int) -> np.ndarray:
    """cc3d's multilabel labels renumbered 1..n in raster order of each component's first
    element (the numbering of ``ccl.label_classes``)."""
    return raster_renumber(cc3d_reference().connected_components(values, connectivity=connectivity))


def _reference(values: np.ndarray, connectivity: int, min_size=0, max_size=None, largest=None,
               min_extent=None, max_extent=None) -> np.ndarray:  # fmt: skip
    """The cleaned labels of a class map: ranges, then the k largest (of equal sizes the
    first in raster order), renumbered in raster order."""
    labels = _raster_labels(values, connectivity)
    n = int(labels.max(initial=0))
    return cleaned_labels(labels, n, min_size, max_size, largest, min_extent, max_extent)


def _cases():
    for ndim in (2, 3):
        for connectivity in CONNECTIVITIES[ndim]:
            for dtype in (np.uint8, np.uint16, np.int32):
                yield ndim, connectivity, dtype


@pytest.mark.parametrize("ndim, connectivity, dtype", list(_cases()))
@pytest.mark.parametrize("threshold", (1, 2, 4, 7.5, (2, 6), (3, 3)))
@pytest.mark.parametrize("invert", (False, True))
def test_dust_equals_cc3d(ndim, connectivity, dtype, threshold, invert):
    differs_from_binary = 0
    for seed in range(3):
        values = _class_map(SHAPES[ndim], seed, dtype)
        got = ccl.dust(values, threshold, connectivity, invert=invert, classes=True)
        expected = cc3d_reference().dust(values, threshold, connectivity=connectivity, invert=invert)
        assert got.dtype == values.dtype and got.shape == values.shape
        # cc3d returns the unsigned view of a signed map where it removes nothing.
        np.testing.assert_array_equal(got, expected.view(values.dtype), err_msg=f"seed {seed}")
        binary = ccl.dust(values, threshold, connectivity, invert=invert)
        differs_from_binary += not np.array_equal(got, binary)
    if threshold not in (1, (3, 3)):
        # Size 1 keeps everything, an empty range nothing: the others tell the two apart.
        assert differs_from_binary, "these maps do not tell classes from one foreground"


@pytest.mark.parametrize("ndim, connectivity, dtype", list(_cases()))
@pytest.mark.parametrize("k", (0, 1, 2, 5))
def test_largest_k_keeps_what_cc3d_keeps(ndim, connectivity, dtype, k):
    """The labels are the reference's (raster order, the first of equal sizes); the kept
    voxels cc3d's, for k = 1 always (its argmax takes the first too), else where no equal
    sizes straddle the cut."""
    compared = 0
    for seed in range(8):
        values = _class_map(SHAPES[ndim], seed + 10, dtype, density=0.5)
        labels, n = ccl.largest_k(values, k, connectivity, classes=True, return_N=True)
        expected = _reference(values, connectivity, largest=k)
        np.testing.assert_array_equal(labels, expected, err_msg=f"seed {seed}")
        assert labels.dtype == np.uint32 and n == expected.max(initial=0)
        sizes = np.sort(np.bincount(_raster_labels(values, connectivity).ravel())[1:])[::-1]
        if k > 1 and len(sizes) > k and sizes[k - 1] == sizes[k]:
            continue
        theirs = cc3d_reference().largest_k(values, k, connectivity=connectivity)
        np.testing.assert_array_equal(labels != 0, theirs != 0, err_msg=f"seed {seed}")
        compared += 1
    assert compared >= 2


@pytest.mark.parametrize("ndim", (2, 3))
def test_keep_with_classes_equals_the_reference(ndim):
    extent = (2,) * ndim
    filters = [dict(min_size=3), dict(min_size=2, max_size=9), dict(largest=3),
               dict(min_extent=extent), dict(max_extent=(3,) * ndim, largest=4),
               dict(min_size=2, min_extent=extent, largest=2)]  # fmt: skip
    for connectivity in CONNECTIVITIES[ndim]:
        values = _class_map(SHAPES[ndim], connectivity, np.int32)
        for options in filters:
            mask = ccl.keep(values, connectivity, classes=True, **options)
            expected = _reference(values, connectivity, **options) != 0
            assert mask.dtype == bool
            np.testing.assert_array_equal(mask, expected, err_msg=f"{connectivity} {options}")
            labels, n = ccl.label(values, connectivity, **options)
            assert not np.array_equal(mask, labels != 0) or not mask.any(), (
                f"{options}: the same mask as one foreground's"
            )
        np.testing.assert_array_equal(ccl.keep(values, connectivity, classes=True), values != 0)


@pytest.mark.parametrize("connectivity", (4, 8))
def test_batches_clean_each_map_alone(connectivity):
    maps = np.stack([_class_map((31, 40), seed, np.uint8) for seed in range(5)]
                    + [np.zeros((31, 40), np.uint8)])  # fmt: skip
    for batch in (maps, maps[:, None]):
        dusted = ccl.dust(batch, 4, connectivity, batch=True, classes=True)
        kept = ccl.keep(batch, connectivity, batch=True, classes=True, min_size=2, largest=3)
        labels, counts = ccl.largest_k(batch, 2, connectivity, batch=True, classes=True,
                                       return_N=True)  # fmt: skip
        assert dusted.shape == kept.shape == labels.shape == batch.shape
        assert dusted.dtype == np.uint8 and counts.shape == (len(maps),)
        for i, values in enumerate(maps):
            dusted_i, kept_i, labels_i = (a.reshape(maps.shape)[i] for a in (dusted, kept, labels))
            np.testing.assert_array_equal(dusted_i, ccl.dust(values, 4, connectivity, classes=True))
            np.testing.assert_array_equal(dusted_i, cc3d_reference().dust(values, 4, connectivity=connectivity))
            np.testing.assert_array_equal(
                kept_i, _reference(values, connectivity, min_size=2, largest=3) != 0
            )
            expected = _reference(values, connectivity, largest=2)
            np.testing.assert_array_equal(labels_i, expected, err_msg=f"image {i}")
            assert counts[i] == expected.max(initial=0)


def test_default_is_one_foreground():
    """``classes=False`` (the default) is unchanged: cc3d's of the map's foreground (what its
    ``binary_image=True`` means; cc3d 4.1 ignores that for 2-D 4-connectivity), the values
    kept where it keeps them."""
    for ndim, connectivity, dtype in _cases():
        values = _class_map(SHAPES[ndim], connectivity, dtype)
        foreground = (values != 0).astype(np.uint8)
        got = ccl.dust(values, 4, connectivity)
        expected = cc3d_reference().dust(foreground, 4, connectivity=connectivity) != 0
        np.testing.assert_array_equal(got, np.where(expected, values, 0))
        assert got.dtype == values.dtype
        mask = ccl.largest_k(values, 1, connectivity) != 0
        theirs = cc3d_reference().largest_k(foreground, 1, connectivity=connectivity) != 0
        np.testing.assert_array_equal(mask, theirs)
        with_classes = ccl.largest_k(values, 1, connectivity, classes=True) != 0
        assert not np.array_equal(with_classes, mask), f"{connectivity}: classes ignored"


def test_dtype_torch_free_options_and_bool_maps():
    values = _class_map((40, 50), 2, np.uint16)
    labels, n = ccl.largest_k(values, 4, 8, classes=True, return_N=True, dtype="auto")
    assert labels.dtype == np.uint16 and n == 4
    np.testing.assert_array_equal(labels, _reference(values, 8, largest=4))
    labels = ccl.largest_k(values, 4, 8, classes=True, dtype="int64")
    assert labels.dtype == np.int64
    # A bool map has one class: the same as one foreground.
    mask = values != 0
    np.testing.assert_array_equal(ccl.dust(mask, 3, 4, classes=True), ccl.dust(mask, 3, 4))
    np.testing.assert_array_equal(ccl.largest_k(mask, 2, 4, classes=True),
                                  ccl.largest_k(mask, 2, 4))  # fmt: skip
    # A list is an array-like as everywhere.
    np.testing.assert_array_equal(ccl.dust(values.tolist(), 3, 8, classes=True),
                                  ccl.dust(values, 3, 8, classes=True))  # fmt: skip
    empty = np.zeros((0, 5), np.int32)
    assert ccl.dust(empty, 3, classes=True).shape == (0, 5)
    assert ccl.largest_k(empty, 1, classes=True, return_N=True)[1] == 0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: ccl.dust(m.astype(np.float32), 3, classes=True), "float"),
        (lambda m: ccl.dust(m.astype(np.float64), 0, invert=True, classes=True), "float"),
        (lambda m: ccl.dust(m.astype(np.float64), (4, 4), classes=True), "float"),
        (lambda m: ccl.largest_k(m.astype(np.float16), 2, classes=True), "float"),
        (lambda m: ccl.keep(m.astype(np.float32), classes=True, min_size=2), "float"),
        (lambda m: ccl.keep(m.astype(np.float32)[None], batch=True, classes=True), "float"),
        (lambda m: ccl.dust(m, 3, algorithm="cpu-rle", classes=True), "algorithm"),
        (lambda m: ccl.largest_k(m, 2, algorithm="cpu-uf", classes=True), "algorithm"),
        (lambda m: ccl.largest_k(m, -1, classes=True), "at least 0"),
        (lambda m: ccl.keep(m, classes=True, min_extent=(1, 2, 3)), "2 extents"),
        (lambda m: ccl.keep(m, 26, classes=True), "3-D"),
        (lambda m: ccl.dust(m, 3, 6, batch=True, classes=True), "volumes"),
    ],
)
def test_bad_arguments_are_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call(_class_map((12, 13), 0, np.int32))


# ------------------------------------------------------------------------------ GPU arrays


@pytest.mark.parametrize("framework", ["cupy", "torch"])
@pytest.mark.parametrize(
    "shape, connectivity, dtype",
    [((70, 83), 4, np.uint8), ((70, 83), 8, np.int32), ((14, 19, 23), 6, np.uint16),
     ((14, 19, 23), 26, np.int32)],
)  # fmt: skip
def test_device_equals_host(framework, shape, connectivity, dtype):
    xp = gpu_module(framework)
    if xp is None:
        pytest.skip(f"{framework} with a CUDA device is not available")
    values = _class_map(shape, connectivity, dtype, density=0.6)
    device = xp.asarray(values) if framework == "cupy" else xp.from_numpy(values).cuda()
    dusted = ccl.dust(device, 4, connectivity, classes=True)
    assert type(dusted) is type(device) and dusted.dtype == device.dtype
    np.testing.assert_array_equal(to_numpy(dusted), cc3d_reference().dust(values, 4, connectivity=connectivity))
    inverted = ccl.dust(device, (2, 5), connectivity, invert=True, classes=True)
    np.testing.assert_array_equal(
        to_numpy(inverted), ccl.dust(values, (2, 5), connectivity, invert=True, classes=True)
    )
    labels, n = ccl.largest_k(device, 3, connectivity, classes=True, return_N=True)
    assert type(labels) is type(device)
    np.testing.assert_array_equal(to_numpy(labels), _reference(values, connectivity, largest=3))
    assert n == 3
    mask = ccl.keep(device, connectivity, classes=True, min_size=2, max_extent=(4,) * len(shape))
    assert type(mask) is type(device)
    expected = _reference(values, connectivity, min_size=2, max_extent=(4,) * len(shape)) != 0
    np.testing.assert_array_equal(to_numpy(mask), expected)


@pytest.mark.parametrize("framework", ["cupy", "torch"])
def test_device_batches_equal_host(framework):
    xp = gpu_module(framework)
    if xp is None:
        pytest.skip(f"{framework} with a CUDA device is not available")
    maps = np.stack([_class_map((45, 61), seed, np.uint8) for seed in range(6)])[:, None]
    device = xp.asarray(maps) if framework == "cupy" else xp.from_numpy(maps).cuda()
    dusted = ccl.dust(device, 3, 8, batch=True, classes=True)
    np.testing.assert_array_equal(to_numpy(dusted), ccl.dust(maps, 3, 8, batch=True, classes=True))
    labels, counts = ccl.largest_k(device, 2, 4, batch=True, classes=True, return_N=True)
    host_labels, host_counts = ccl.largest_k(maps, 2, 4, batch=True, classes=True, return_N=True)
    assert type(counts) is type(device)
    np.testing.assert_array_equal(to_numpy(labels), host_labels)
    np.testing.assert_array_equal(to_numpy(counts), host_counts)
    mask = ccl.keep(device, 8, batch=True, classes=True, largest=1)
    np.testing.assert_array_equal(to_numpy(mask), ccl.keep(maps, 8, batch=True, classes=True,
                                                           largest=1))  # fmt: skip
    with pytest.raises(ValueError, match="float"):
        ccl.dust(device.float() if framework == "torch" else device.astype("float32"), 3, 8,
                 batch=True, classes=True)  # fmt: skip
