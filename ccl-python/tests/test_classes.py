"""Class maps: ``ccl.label_classes`` (cc3d's multilabel ``connected_components``).

Compared with cc3d (its labels renumbered in raster order of each component's first voxel,
and each component's class read from the map) and with a scipy reference (``ndimage.label``
of each class alone, merged in raster order), on random maps of several classes, sticky maps
of long runs and long class borders, edge shapes and every integer dtype; on the host, and on
CuPy arrays and CUDA torch tensors where a GPU runs, whose results must stay on the device
and equal the host's. Batches are compared image by image. The errors: float maps, wrong
dimensions, connectivities of the other dimension.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

import ccl
from conftest import cc3d_reference, gpu_module, raster_renumber


def _structure(connectivity: int, ndim: int) -> np.ndarray:
    rank = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[connectivity]
    return ndimage.generate_binary_structure(ndim, rank)


def _class_map(shape, classes: int, density: float, seed: int, sticky: bool = False,
               dtype=np.uint16) -> np.ndarray:  # fmt: skip
    """Values 1..classes on a fraction ``density`` of the elements, 0 elsewhere; ``sticky``
    repeats the previous element along x with probability 0.8 (long runs and borders)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(1, classes + 1, shape)
    values[rng.random(shape) >= density / 100] = 0
    if sticky:
        repeat = rng.random(shape) < 0.8
        flat, rep = values.reshape(-1, shape[-1]), repeat.reshape(-1, shape[-1])
        for x in range(1, shape[-1]):
            flat[:, x] = np.where(rep[:, x], flat[:, x - 1], flat[:, x])
    return values.astype(dtype)


def _cc3d_reference(values: np.ndarray, connectivity: int):
    """cc3d's multilabel labels in raster order, and each component's class."""
    labels = raster_renumber(cc3d_reference().connected_components(values, connectivity=connectivity))
    return labels, _classes_of(values, labels)


def _classes_of(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    n = int(labels.max(initial=0))
    classes = np.zeros(n, values.dtype)
    flat = labels.ravel()
    classes[flat[flat != 0] - 1] = values.ravel()[flat != 0]
    return classes


def _scipy_reference(values: np.ndarray, connectivity: int) -> np.ndarray:
    """Each class labeled alone by scipy, merged and renumbered in raster order."""
    merged = np.zeros(values.shape, np.int64)
    offset = 0
    for value in np.unique(values[values != 0]):
        labels, n = ndimage.label(values == value, _structure(connectivity, values.ndim))
        merged[labels != 0] = labels[labels != 0] + offset
        offset += n
    return raster_renumber(merged)


IMAGE_CASES = [
    ((37, 53), 4, 50, False),
    ((64, 80), 2, 70, False),
    ((48, 129), 5, 90, True),
    ((1, 97), 3, 60, True),
    ((97, 1), 3, 60, False),
    ((1, 1), 1, 100, False),
    ((33, 65), 1, 40, False),
]

VOLUME_CASES = [
    ((9, 17, 23), 4, 50, False),
    ((12, 10, 40), 3, 80, True),
    ((1, 13, 33), 2, 60, False),
    ((17, 1, 9), 3, 70, False),
    ((10, 9, 1), 2, 90, False),
]


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("shape, classes, density, sticky", IMAGE_CASES)
def test_images_equal_cc3d_and_scipy(shape, classes, density, sticky, connectivity):
    values = _class_map(shape, classes, density, seed=sum(shape) + classes, sticky=sticky)
    labels, component_classes = ccl.label_classes(values, connectivity)
    expected, expected_classes = _cc3d_reference(values, connectivity)
    np.testing.assert_array_equal(labels, expected)
    np.testing.assert_array_equal(labels, _scipy_reference(values, connectivity))
    np.testing.assert_array_equal(component_classes, expected_classes)
    assert component_classes.dtype == values.dtype


@pytest.mark.parametrize("connectivity", [6, 18, 26])
@pytest.mark.parametrize("shape, classes, density, sticky", VOLUME_CASES)
def test_volumes_equal_cc3d_and_scipy(shape, classes, density, sticky, connectivity):
    values = _class_map(shape, classes, density, seed=sum(shape) * classes, sticky=sticky)
    labels, component_classes = ccl.label_classes(values, connectivity)
    expected, expected_classes = _cc3d_reference(values, connectivity)
    np.testing.assert_array_equal(labels, expected)
    np.testing.assert_array_equal(labels, _scipy_reference(values, connectivity))
    np.testing.assert_array_equal(component_classes, expected_classes)


@pytest.mark.parametrize(
    "dtype", [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64,
              np.int64])  # fmt: skip
def test_every_integer_dtype(dtype):
    values = _class_map((40, 50), 3, 70, seed=5, sticky=True, dtype=np.int64)
    if dtype is np.bool_:
        values = values != 0
    elif np.issubdtype(dtype, np.signedinteger):
        values = np.where(values != 0, values - 2, 0)  # negative classes too (-1 and 1)
        values[values == 0] = 0
    values = values.astype(dtype)
    labels, classes = ccl.label_classes(values, 8)
    expected, expected_classes = _cc3d_reference(values.view(np.uint8) if dtype is np.bool_
                                                 else values, 8)  # fmt: skip
    np.testing.assert_array_equal(labels, expected)
    np.testing.assert_array_equal(classes, expected_classes.astype(dtype))
    assert classes.dtype == np.dtype(dtype)


def test_binary_map_equals_label():
    values = _class_map((70, 90), 1, 55, seed=3)
    labels, classes = ccl.label_classes(values, 4)
    binary, n = ccl.label(values, 4)
    np.testing.assert_array_equal(labels, binary)
    assert len(classes) == n and (classes == 1).all()


def test_touching_classes_stay_apart():
    checker = (np.indices((6, 8)).sum(axis=0) % 2 + 1).astype(np.uint8)
    labels, classes = ccl.label_classes(checker, 8)
    assert list(classes) == [1, 2]  # the diagonals join each class
    labels, classes = ccl.label_classes(checker, 4)
    assert len(classes) == checker.size


def test_batches_equal_each_image_alone():
    maps = _class_map((5, 31, 45), 4, 65, seed=11, sticky=True)
    labels, counts, classes = ccl.label_classes(maps, 8, batch=True)
    offsets = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    for i, image in enumerate(maps):
        alone, alone_classes = ccl.label_classes(image, 8)
        np.testing.assert_array_equal(labels[i], alone)
        np.testing.assert_array_equal(classes[offsets[i]:offsets[i + 1]], alone_classes)
    # The (n, 1, h, w) layout of a network's output.
    labels4, counts4, _ = ccl.label_classes(maps[:, None], 8, batch=True)
    assert labels4.shape == (5, 1, 31, 45)
    np.testing.assert_array_equal(labels4[:, 0], labels)
    np.testing.assert_array_equal(counts4, counts)


def test_dtype_and_empty_maps():
    values = _class_map((20, 20), 3, 50, seed=1)
    labels, classes = ccl.label_classes(values, 8, dtype="auto")
    assert labels.dtype == np.uint16
    labels, classes = ccl.label_classes(np.zeros((0, 5), np.uint8), 8)
    assert labels.shape == (0, 5) and len(classes) == 0
    labels, classes = ccl.label_classes(np.zeros((4, 5), np.int32), 8)
    assert not labels.any() and len(classes) == 0


@pytest.mark.parametrize(
    "values, connectivity, message",
    [
        (np.ones((4, 4), np.float32), 8, "floats|float32"),
        (np.ones((2, 3, 4, 5), np.uint8), 26, "dimensions"),
        (np.ones((4, 4), np.uint8), 26, "3-D"),
        (np.ones((3, 4, 4), np.uint8), 8, "2-D"),
        (np.ones((4, 4), np.uint8), 5, "connectivity"),
    ],
)
def test_errors(values, connectivity, message):
    with pytest.raises(ValueError, match=message):
        ccl.label_classes(values, connectivity)
    with pytest.raises(ValueError, match="float"):
        ccl.label_classes(np.ones((2, 4, 4), np.float64), 8, batch=True)


@pytest.mark.parametrize("framework", ["cupy", "torch"])
@pytest.mark.parametrize(
    "shape, connectivity, dtype",
    [
        ((257, 301), 4, np.uint8),
        ((257, 301), 8, np.uint16),
        ((300, 200), 8, np.int32),
        ((40, 33, 70), 6, np.uint8),
        ((40, 33, 70), 18, np.int16),
        ((40, 33, 70), 26, np.int64),
        ((1, 1), 8, np.uint8),
    ],
)
def test_device_equals_host(framework, shape, connectivity, dtype):
    xp = gpu_module(framework)
    if xp is None:
        pytest.skip(f"{framework} with a CUDA device is not available")
    for density, sticky in ((35, False), (85, True)):
        values = _class_map(shape, 4, density, seed=len(shape) + connectivity, sticky=sticky,
                            dtype=dtype)  # fmt: skip
        host_labels, host_classes = ccl.label_classes(values, connectivity)
        if framework == "cupy":
            device = xp.asarray(values)
        else:
            device = xp.from_numpy(values).cuda()
        labels, classes = ccl.label_classes(device, connectivity)
        assert type(labels) is type(device) and type(classes) is type(device)
        labels = labels.cpu().numpy() if framework == "torch" else xp.asnumpy(labels)
        classes = classes.cpu().numpy() if framework == "torch" else xp.asnumpy(classes)
        np.testing.assert_array_equal(labels.astype(np.uint32), host_labels)
        np.testing.assert_array_equal(classes, host_classes)


@pytest.mark.parametrize("framework", ["cupy", "torch"])
def test_device_batches_equal_host(framework):
    xp = gpu_module(framework)
    if xp is None:
        pytest.skip(f"{framework} with a CUDA device is not available")
    maps = _class_map((7, 65, 97), 4, 70, seed=2, sticky=True, dtype=np.uint8)
    host = ccl.label_classes(maps, 4, batch=True)
    device = xp.asarray(maps) if framework == "cupy" else xp.from_numpy(maps).cuda()
    result = ccl.label_classes(device, 4, batch=True)
    for got, want in zip(result, host):
        got = got.cpu().numpy() if framework == "torch" else xp.asnumpy(got)
        np.testing.assert_array_equal(got.astype(want.dtype), want)


def test_device_large_map_equals_cc3d():
    cupy = gpu_module("cupy")
    if cupy is None:
        pytest.skip("cupy with a CUDA device is not available")
    values = _class_map((96, 128, 160), 4, 60, seed=9, sticky=True, dtype=np.uint8)
    labels, classes = ccl.label_classes(cupy.asarray(values), 26)
    expected, expected_classes = _cc3d_reference(values, 26)
    np.testing.assert_array_equal(cupy.asnumpy(labels), expected)
    np.testing.assert_array_equal(cupy.asnumpy(classes), expected_classes)
    with pytest.raises(ValueError, match="float"):
        ccl.label_classes(cupy.ones((4, 4), cupy.float32), 8)
