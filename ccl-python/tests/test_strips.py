"""Labeling in strips (``max_gpu_memory=``, ``devices=``): the same labels as the whole image or
volume, with caps that force one plane a strip and a few; on the CPU (``algorithm="cpu-rle"``,
the cap its working memory) everywhere, and on the GPU where one runs."""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy import ndimage

import ccl
from conftest import cuda_algorithms_available, random_image, spiral

# Where a GPU runs, the default variant labels the strips there.
BACKENDS = ["cpu-rle"] + ([None] if cuda_algorithms_available() else [])


def _volume(shape, density, seed):
    return (np.random.default_rng(seed).random(shape) < density).astype(np.uint8)


@pytest.mark.parametrize("algorithm", BACKENDS)
@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("cap", ["6KB", "40KB", 10**6])
def test_images_in_strips_equal_the_whole_image(algorithm, connectivity, cap):
    for image in (random_image((61, 47), 0.6, 1, 3), spiral((40, 40)), np.ones((9, 30), np.uint8)):
        expected, n = ccl.label(image, connectivity, algorithm="cpu-uf")
        labels, m = ccl.label(image, connectivity, algorithm=algorithm, max_gpu_memory=cap)
        assert labels.dtype == np.uint32 and m == n
        np.testing.assert_array_equal(labels, expected)


@pytest.mark.parametrize("algorithm", BACKENDS)
@pytest.mark.parametrize("connectivity", [6, 18, 26])
def test_volumes_in_slabs_equal_the_whole_volume(algorithm, connectivity):
    volume = _volume((13, 17, 19), 0.3, 5)
    expected, n = ndimage.label(volume, ndimage.generate_binary_structure(3, {6: 1, 18: 2, 26: 3}[connectivity]))
    # One slice of 323 voxels at 29 bytes each, over four workers: a slice a slab, then four.
    for cap in ["40KB", "160KB"]:
        labels, m = ccl.label(volume, connectivity, algorithm=algorithm, max_gpu_memory=cap)
        assert m == n
        np.testing.assert_array_equal(labels, expected)


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_features_in_strips_equal_the_whole_arrays(algorithm):
    cases = [
        (random_image((61, 47), 0.6, 1, 3), 4, "6KB"),
        (spiral((40, 40)), 8, "6KB"),
        (_volume((13, 17, 19), 0.3, 5), 26, "40KB"),
        (_volume((9, 8, 7), 0.5, 2), 6, "20KB"),
    ]
    for array, connectivity, cap in cases:
        expected = ccl.analyze(array, connectivity, algorithm="cpu-rle")
        features = ccl.analyze(array, connectivity, algorithm=algorithm, max_gpu_memory=cap)
        assert type(features) is type(expected)
        for name in expected._fields:
            got, want = getattr(features, name), getattr(expected, name)
            assert got.dtype == want.dtype, name
            np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("algorithm", BACKENDS)
@pytest.mark.parametrize("no_slice_conversion", [False, True])
def test_statistics_in_strips_equal_the_whole_arrays(algorithm, no_slice_conversion):
    full = np.ones((12, 9), np.uint8)  # no background: cc3d's sentinel row
    framed = np.pad(np.ones((5, 6, 4), np.uint8), 1)  # background only around the edge
    cases = [
        (random_image((61, 47), 0.6, 1, 3), 8, "6KB"),
        (full, 4, "1KB"),
        (_volume((13, 17, 19), 0.3, 5), 18, "40KB"),
        (framed, 6, "8KB"),
    ]
    for array, connectivity, cap in cases:
        expected = ccl.statistics(array, connectivity, no_slice_conversion=no_slice_conversion)
        stats = ccl.statistics(
            array, connectivity, algorithm=algorithm, no_slice_conversion=no_slice_conversion,
            max_gpu_memory=cap,
        )
        assert stats.keys() == expected.keys()
        np.testing.assert_array_equal(stats["voxel_counts"], expected["voxel_counts"])
        assert stats["voxel_counts"].dtype == expected["voxel_counts"].dtype
        np.testing.assert_array_equal(stats["centroids"], expected["centroids"])
        if no_slice_conversion:
            np.testing.assert_array_equal(stats["bounding_boxes"], expected["bounding_boxes"])
            assert stats["bounding_boxes"].dtype == expected["bounding_boxes"].dtype
        else:
            assert stats["bounding_boxes"] == expected["bounding_boxes"]


def test_features_and_statistics_in_strips_refuse_what_label_refuses():
    image = np.ones((10, 10), np.uint8)
    with pytest.raises(ValueError, match="at least one byte"):
        ccl.analyze(image, max_gpu_memory=0)
    with pytest.raises(ValueError, match="list of GPU ordinals"):
        ccl.statistics(image, devices=0)
    with pytest.raises(ValueError, match="memory cap"):
        ccl.statistics(image, 4, algorithm="cpu-rle", max_gpu_memory=100)
    with pytest.raises(ValueError, match="strips"):
        ccl.analyze(np.ones((2, 4, 4)), 8, max_gpu_memory="1MB", batch=True)
    empty = ccl.statistics(np.zeros((0, 3), np.uint8), algorithm="cpu-rle", max_gpu_memory="1MB")
    assert empty == {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
    features = ccl.analyze(np.zeros((3, 0, 2), np.uint8), 6, algorithm="cpu-rle", max_gpu_memory="1MB")
    assert len(features.area) == 0 and features.centroids.shape == (0, 3)


@pytest.mark.parametrize("algorithm", BACKENDS)
def test_out_takes_32_or_64_bit_labels_and_inputs_of_any_layout(algorithm):
    # On a GPU: both label types renumbered on the device and staged through pinned memory.
    image = random_image((50, 40), 0.5, 1, 8)
    expected, n = ccl.label(image, 8, algorithm="cpu-uf")
    for dtype in (np.uint32, np.uint64):
        out = np.full(image.shape, 7, dtype)
        labels, m = ccl.label(image.T.T[::1, ::1], 8, algorithm=algorithm, max_gpu_memory="8KB", out=out)
        assert labels is out and m == n
        np.testing.assert_array_equal(out, expected)
    # Fortran order and a float array: packed and binarized first.
    floats = np.asfortranarray(image.astype(np.float32) * -0.5)
    labels, m = ccl.label(floats, 8, algorithm=algorithm, max_gpu_memory=8192)
    assert m == n
    np.testing.assert_array_equal(labels, expected)


def test_bad_strip_calls_are_value_errors():
    image = np.ones((10, 10), np.uint8)
    with pytest.raises(ValueError, match="at least one byte"):
        ccl.label(image, max_gpu_memory=0)
    with pytest.raises(ValueError, match="unit"):
        ccl.label(image, max_gpu_memory="8 parsecs")
    with pytest.raises(ValueError, match="not a size"):
        ccl.label(image, max_gpu_memory="GiB")
    with pytest.raises(ValueError, match="not a size"):
        ccl.label(image, max_gpu_memory="GiB")
    with pytest.raises(ValueError, match="bytes or a string"):
        ccl.label(image, max_gpu_memory=1.5)
    with pytest.raises(ValueError, match="memory cap"):
        ccl.label(image, 4, algorithm="cpu-rle", max_gpu_memory=100)
    with pytest.raises(ValueError, match="list of GPU ordinals"):
        ccl.label(image, devices=0)
    with pytest.raises(ValueError, match="no GPU"):
        ccl.label(image, devices=[])
    with pytest.raises(ValueError, match="stream"):
        ccl.label(image, max_gpu_memory="1MB", min_size=3)
    with pytest.raises(ValueError, match="stream"):
        ccl.label(np.ones((2, 4, 4)), 8, max_gpu_memory="1MB", batch=True)
    with pytest.raises(ValueError, match="dtype"):
        ccl.label(image, algorithm="cpu-rle", max_gpu_memory="1MB", out=np.zeros((10, 10), np.int32))
    # An empty image: no components.
    labels, n = ccl.label(np.zeros((0, 5), np.uint8), 4, algorithm="cpu-rle", max_gpu_memory="1MB")
    assert n == 0 and labels.shape == (0, 5)


@pytest.mark.skipif(not cuda_algorithms_available(), reason="no CUDA variant runs here")
def test_large_host_arrays_go_through_strips_with_the_same_labels():
    # Past 2**23 pixels a host array labeled on the GPU is streamed in strips unasked.
    image = random_image((4100, 2048), 0.6, 1, 9)
    volume = _volume((208, 208, 208), 0.3, 9)
    for array, connectivity in ((image, 4), (volume, 26)):
        assert array.size >= 2**23
        expected, n = ccl.label(array, connectivity, algorithm="cpu-rle")
        labels, m = ccl.label(array, connectivity)
        assert labels.dtype == np.uint32 and m == n
        np.testing.assert_array_equal(labels, expected)
        out = np.zeros(array.shape, np.uint32)
        labels, m = ccl.label(array, connectivity, out=out)
        assert labels is out and m == n
        np.testing.assert_array_equal(out, expected)
    assert ccl._ccl.label_backend(8) == "cuda" and ccl._ccl.label_backend(8, "cpu-rle") == "cpu"


@pytest.mark.skipif(not cuda_algorithms_available(), reason="no CUDA variant runs here")
def test_two_workers_on_each_of_two_devices_that_are_one_gpu():
    image = random_image((300, 257), 0.62, 1, 4)
    expected, n = ccl.label(image, 4, algorithm="cpu-uf")
    labels, m = ccl.label(image, 4, max_gpu_memory="200KB", devices=[0, 0])
    assert m == n
    np.testing.assert_array_equal(labels, expected)


def _gpu_count() -> int:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 (no CuPy, no driver: no GPU to count)
        return 0


@pytest.mark.skipif(not cuda_algorithms_available() or _gpu_count() < 2,
                    reason="needs two GPUs")
def test_strips_dealt_to_two_gpus_equal_one_gpu():
    for array, connectivity in ((random_image((700, 301), 60, 1, 6), 4),
                                (_volume((40, 33, 29), 0.31, 6), 26)):
        one, n = ccl.label(array, connectivity, max_gpu_memory="300KB", devices=[0])
        two, m = ccl.label(array, connectivity, max_gpu_memory="300KB", devices=[0, 1])
        assert m == n
        np.testing.assert_array_equal(two, one)
        expected, _ = ccl.label(array, connectivity, algorithm="cpu-uf")
        np.testing.assert_array_equal(one, expected)
        split = ccl.analyze(array, connectivity, max_gpu_memory="300KB", devices=[1, 0])
        whole = ccl.analyze(array, connectivity, algorithm="cpu-uf")
        for got, want in zip(split, whole):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.skipif(
    os.environ.get("CCL_HUGE_TESTS") != "1" or not cuda_algorithms_available(),
    reason="needs CCL_HUGE_TESTS=1, a GPU and about 45 GB of host memory",
)
def test_an_image_past_2_32_pixels_gets_exact_uint64_labels():
    # 65537 x 65536 = 2**32 + 65536 pixels: left half vertical lines on even columns (each
    # crossing every strip), right half horizontal segments on even rows; in raster order the
    # lines are 1..16384 (row 0), then the segment of row 2k is 16385 + k.
    height, width, half = 65537, 65536, 32768
    image = np.zeros((height, width), np.uint8)
    image[:, 0:half:2] = 1
    image[0::2, half:] = 1
    labels, n = ccl.label(image, 4, max_gpu_memory="8GiB")
    assert labels.dtype == np.uint64
    assert n == half // 2 + (height + 1) // 2
    np.testing.assert_array_equal(labels[:, 1:half:2], 0)
    np.testing.assert_array_equal(labels[1::2, half:], 0)
    lines = np.arange(1, half // 2 + 1, dtype=np.uint64)
    for y in range(0, height, 4096):  # in blocks of rows: no temporary of the whole image
        np.testing.assert_array_equal(labels[y:y + 4096, 0:half:2], np.broadcast_to(lines, labels[y:y + 4096, 0:half:2].shape))
    segments = half // 2 + 1 + np.arange((height + 1) // 2, dtype=np.uint64)
    np.testing.assert_array_equal(labels[0::2, half:], np.broadcast_to(segments[:, None], (len(segments), half)))


@pytest.mark.skipif(not cuda_algorithms_available(), reason="no CUDA variant runs here")
def test_a_pinned_out_takes_the_labels_straight_from_the_gpu():
    cupyx = pytest.importorskip("cupyx")
    image = random_image((700, 600), 0.61, 1, 6)
    expected, n = ccl.label(image, 8, algorithm="cpu-uf")
    out = cupyx.empty_pinned(image.shape, np.uint64)
    out[...] = 7
    labels, m = ccl.label(image, 8, max_gpu_memory="100KB", out=out)
    assert labels is out and m == n
    np.testing.assert_array_equal(out, expected)
