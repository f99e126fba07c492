"""The clean-up after a labeling: ``ccl.label(min_size=, max_size=, largest=, min_extent=,
max_extent=)``, ``ccl.keep``, cc3d's ``dust`` and ``largest_k``, the label ``dtype``, and
``ccl.analyze`` with the same keywords (the features of what ``label`` keeps, in its order,
checked against features computed with numpy from ``label``'s labels, also in strips).

Compared with cc3d (``dust``, ``largest_k`` and ``statistics`` of what is kept) and with a
reference written here from scipy's labels (``np.bincount`` and ``find_objects``), on images,
volumes and batches (each image against itself alone); on the host for every available
variant, and on CuPy arrays and CUDA torch tensors where a GPU runs, whose results must stay
on the device and equal the host's. The errors: negative k, inverted ranges, extents of the
wrong dimension, unknown dtypes, batches of mixed sizes.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

import ccl
from conftest import (
    algorithm_names,
    cc3d_reference,
    cleaned_labels,
    gpu_module,
    random_image,
    to_numpy,
)


def _noise(shape, density: float, seed: int) -> np.ndarray:
    """A bool array of any dimension, each element set with probability density / 100."""
    return np.random.default_rng(seed).random(shape) < density / 100


def _structure(connectivity: int, ndim: int) -> np.ndarray:
    rank = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[connectivity]
    return ndimage.generate_binary_structure(ndim, rank)


def _reference(image: np.ndarray, connectivity: int, min_size=0, max_size=None, largest=None,
               min_extent=None, max_extent=None) -> np.ndarray:  # fmt: skip
    """The cleaned canonical labels, from scipy's: ranges, then the k largest (equal sizes:
    the first label), renumbered in label order."""
    labels, n = ndimage.label(image != 0, _structure(connectivity, image.ndim))
    return cleaned_labels(labels, n, min_size, max_size, largest, min_extent, max_extent)


FILTERS = {
    "dust 3": dict(min_size=3),
    "sizes 2..9": dict(min_size=2, max_size=9),
    "largest 1": dict(largest=1),
    "largest 4": dict(largest=4),
    "largest 0": dict(largest=0),
    "largest 10000": dict(largest=10000),
    "dust 2, largest 3": dict(min_size=2, largest=3),
}

IMAGES = {
    "noise 48x53 30%": ((48, 53), 30, 1),
    "noise 64x64 55%": ((64, 64), 55, 1),
    "blobs 80x70 50%": ((80, 70), 50, 4),
}


def _image(image_id: str) -> np.ndarray:
    shape, density, granularity = IMAGES[image_id]
    return random_image(shape, density, granularity, seed=len(image_id))


@pytest.mark.parametrize("filter_id", sorted(FILTERS))
@pytest.mark.parametrize("image_id", sorted(IMAGES))
@pytest.mark.parametrize("connectivity", (4, 8))
def test_host_labels_equal_the_reference(image_id, filter_id, connectivity):
    image = _image(image_id)
    expected = _reference(image, connectivity, **FILTERS[filter_id])
    for algorithm in algorithm_names("label", connectivity):
        labels, n = ccl.label(image, connectivity, algorithm=algorithm, **FILTERS[filter_id])
        assert n == expected.max(initial=0), f"{algorithm}: {n} components kept"
        assert np.array_equal(labels, expected), f"{algorithm} {filter_id}: labels differ"


@pytest.mark.parametrize("connectivity", (4, 8))
def test_extent_ranges(connectivity):
    image = _image("blobs 80x70 50%")
    for extents in [dict(min_extent=(2, 3)), dict(max_extent=(5, 9)),
                    dict(min_extent=(2, 2), max_extent=(12, 30))]:  # fmt: skip
        labels, n = ccl.label(image, connectivity, **extents)
        expected = _reference(image, connectivity, **extents)
        assert np.array_equal(labels, expected), f"{extents}"
        assert n == expected.max(initial=0)


@pytest.mark.parametrize("connectivity", (4, 8))
@pytest.mark.parametrize("threshold", (1, 2, 5, 7.5, (2, 6)))
@pytest.mark.parametrize("invert", (False, True))
def test_dust_equals_cc3d(connectivity, threshold, invert):
    for image_id in IMAGES:
        image = (_image(image_id) * 7).astype(np.uint8)
        expected = cc3d_reference().dust(image, threshold, connectivity=connectivity, invert=invert)
        got = ccl.dust(image, threshold, connectivity, invert=invert)
        assert got.dtype == image.dtype
        assert np.array_equal(got, expected), f"{image_id} dust {threshold} invert={invert}"


def _cc3d_kept(image: np.ndarray, k: int, connectivity: int) -> np.ndarray:
    return cc3d_reference().largest_k(image, k, connectivity=connectivity) != 0


@pytest.mark.parametrize("connectivity", (4, 8, 6, 26))
@pytest.mark.parametrize("k", (1, 3))
def test_largest_k_keeps_what_cc3d_keeps(connectivity, k):
    """Without equal sizes at the cut, the kept pixels are cc3d's; the numbering is ours
    (raster order), checked against the reference."""
    ndim = 2 if connectivity in (4, 8) else 3
    shape = (70, 90) if ndim == 2 else (18, 20, 22)
    checked = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        image = (rng.random(shape) < 0.3).astype(np.uint8)
        labels, n = ccl.largest_k(image, k, connectivity, return_N=True)
        expected = _reference(image, connectivity, largest=k)
        assert np.array_equal(labels, expected)
        areas = np.sort(np.bincount(ndimage.label(image, _structure(connectivity, ndim))[0].ravel())[1:])
        if len(areas) > k and areas[-k] == areas[-k - 1]:
            continue  # equal sizes at the cut: cc3d's choice among them is arbitrary
        assert np.array_equal(labels != 0, _cc3d_kept(image, k, connectivity))
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("connectivity", (6, 18, 26))
def test_volume_filters_and_statistics_of_what_is_kept(connectivity):
    volume = _noise((16, 24, 20), 35, seed=connectivity)
    for filter_id, options in sorted(FILTERS.items()):
        labels, n = ccl.label(volume, connectivity, **options)
        expected = _reference(volume, connectivity, **options)
        assert np.array_equal(labels, expected), f"{filter_id}"
        if n:
            ours = cc3d_reference().statistics(labels)
            kept = volume * (labels != 0)
            theirs = ccl.statistics(kept, connectivity)
            np.testing.assert_array_equal(theirs["voxel_counts"], ours["voxel_counts"])


@pytest.mark.parametrize("connectivity", (4, 8))
def test_host_batches_clean_each_image_alone(connectivity):
    batch = np.stack([_image(i) [:48, :53] for i in sorted(IMAGES)] + [np.zeros((48, 53), bool)])
    for filter_id, options in sorted(FILTERS.items()):
        labels, counts = ccl.label(batch, connectivity, batch=True, **options)
        mask = ccl.keep(batch[:, None], connectivity, batch=True, **options)
        assert mask.shape == (len(batch), 1, 48, 53) and mask.dtype == bool
        for i, image in enumerate(batch):
            expected = _reference(image, connectivity, **options)
            assert np.array_equal(labels[i], expected), f"{filter_id} image {i}"
            assert counts[i] == expected.max(initial=0)
            assert np.array_equal(mask[i, 0], expected != 0)


def test_dtypes():
    image = _image("noise 64x64 55%")
    labels, n = ccl.label(image)
    for dtype in ("uint16", np.uint16, "uint32", "uint64", np.int64, "int32"):
        cast, m = ccl.label(image, dtype=dtype)
        assert cast.dtype == np.dtype(dtype) and m == n
        assert np.array_equal(cast, labels)
    assert ccl.label(image, dtype="auto")[0].dtype == np.uint16
    many = np.zeros((600, 600), np.uint8)
    many[::2, ::2] = 1  # 90000 components
    assert ccl.label(many, 4, dtype="auto")[0].dtype == np.uint32
    with pytest.raises(ValueError, match="do not fit uint16"):
        ccl.label(many, 4, dtype="uint16")
    with pytest.raises(ValueError, match="dtype"):
        ccl.label(image, dtype="float32")


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda im: ccl.label(im, largest=-1), "at least 0"),
        (lambda im: ccl.largest_k(im, -2), "at least 0"),
        (lambda im: ccl.label(im, largest=2.0), "integer"),
        (lambda im: ccl.label(im, min_size=5, max_size=4), "exceeds"),
        (lambda im: ccl.keep(im, min_extent=(1, 2, 3)), "2 extents"),
        (lambda im: ccl.keep(im, min_extent=(4, 4), max_extent=(3, 9)), "exceeds"),
        (lambda im: ccl.dust(im, (1, 2, 3)), "lower, upper"),
        (lambda im: ccl.dust(im, float("nan")), "finite"),
        (lambda im: ccl.label([im, im[:3]], batch=True), "one size"),
    ],
)
def test_bad_arguments_are_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call(_image("noise 48x53 30%"))


# ------------------------------------------------------------------------------ GPU arrays


cp = gpu_module("cupy")
torch = gpu_module("torch")
needs_cupy = pytest.mark.skipif(cp is None, reason="CuPy with a CUDA device is not available")
needs_torch = pytest.mark.skipif(torch is None, reason="torch with a CUDA device is not available")


def _cuda_labelers(connectivity: int):
    return algorithm_names("label", connectivity, backend="cuda")


@needs_cupy
@pytest.mark.parametrize("filter_id", sorted(FILTERS))
@pytest.mark.parametrize("connectivity", (4, 8, 26))
def test_cupy_filters_stay_on_the_device(filter_id, connectivity):
    options = FILTERS[filter_id]
    shape = (16, 30, 28) if connectivity == 26 else (90, 77)
    image = _noise(shape, 40, seed=5)
    expected = _reference(image, connectivity, **options)
    for algorithm in _cuda_labelers(connectivity):
        labels, n = ccl.label(cp.asarray(image), connectivity, algorithm=algorithm, **options)
        assert isinstance(labels, cp.ndarray), algorithm
        assert n == expected.max(initial=0), f"{algorithm}: {n}"
        assert np.array_equal(labels.get(), expected), f"{algorithm} {filter_id}"
        mask = ccl.keep(cp.asarray(image), connectivity, algorithm=algorithm, **options)
        assert isinstance(mask, cp.ndarray) and mask.dtype == bool
        assert np.array_equal(mask.get(), expected != 0)


@needs_cupy
@pytest.mark.parametrize("connectivity", (4, 8))
def test_cupy_batches_clean_each_image_alone(connectivity):
    rng = np.random.default_rng(connectivity)
    batch = (rng.random((9, 61, 47)) < rng.random((9, 1, 1))).astype(np.uint8)
    for filter_id, options in sorted(FILTERS.items()):
        labels, counts = ccl.label(cp.asarray(batch), connectivity, batch=True, **options)
        assert isinstance(counts, cp.ndarray)
        masks = ccl.keep(cp.asarray(batch)[:, None], connectivity, batch=True, **options)
        for i, image in enumerate(batch):
            expected = _reference(image, connectivity, **options)
            assert np.array_equal(labels[i].get(), expected), f"{filter_id} image {i}"
            assert int(counts[i]) == expected.max(initial=0), f"{filter_id} image {i}"
            assert np.array_equal(masks[i, 0].get(), expected != 0)


@needs_cupy
def test_cupy_dust_and_largest_k_equal_cc3d_on_a_volume():
    volume = (_noise((40, 48, 44), 30, seed=9) * 3).astype(np.uint16)
    got = ccl.dust(cp.asarray(volume), 20, 26)
    assert isinstance(got, cp.ndarray) and got.dtype == volume.dtype
    assert np.array_equal(got.get(), cc3d_reference().dust(volume, 20, connectivity=26))
    labels = ccl.largest_k(cp.asarray(volume), 1, 26)
    assert np.array_equal(labels.get() != 0, cc3d_reference().largest_k(volume, 1, connectivity=26) != 0)


@needs_torch
@pytest.mark.parametrize("connectivity", (4, 8))
def test_torch_images_label_what_the_filter_keeps_in_one_call(connectivity):
    """One CUDA tensor labeled with a clean-up (the labeling's own last pass filters where the
    variant's does): a large noisy image, whose components outgrow the first stats array."""
    image = _noise((700, 650), 25, seed=connectivity)
    tensor = torch.from_numpy(image).cuda()
    for options in (dict(largest=1), dict(min_size=3), dict(min_size=2, largest=5)):
        expected = _reference(image, connectivity, **options)
        labels, n = ccl.label(tensor, connectivity, **options)
        assert labels.is_cuda and n == expected.max(initial=0), f"{options}"
        assert np.array_equal(labels.cpu().numpy().astype(np.int64), expected), f"{options}"
        kept = ccl.keep(tensor, connectivity, **options)
        assert kept.is_cuda and kept.dtype == torch.bool
        assert np.array_equal(kept.cpu().numpy(), expected != 0), f"{options}"
    top = ccl.largest_k(tensor, 1, connectivity)
    assert np.array_equal(top.cpu().numpy() != 0, _reference(image, connectivity, largest=1) != 0)


@needs_torch
@pytest.mark.parametrize("connectivity", (4, 8))
def test_torch_batches_of_masks_keep_the_largest(connectivity):
    """A network's (N, 1, H, W) output: MONAI's keep-largest per image, on the device."""
    rng = np.random.default_rng(3)
    batch = rng.random((8, 1, 64, 96)) < 0.4
    masks = torch.from_numpy(batch).cuda()
    kept = ccl.keep(masks, connectivity, batch=True, largest=1)
    assert kept.is_cuda and kept.dtype == torch.bool and kept.shape == masks.shape
    labels, counts = ccl.label(masks, connectivity, batch=True, min_size=4, dtype=torch.int64)
    assert labels.dtype == torch.int64 and labels.is_cuda and counts.is_cuda
    for i in range(len(batch)):
        image = batch[i, 0]
        assert np.array_equal(kept[i, 0].cpu().numpy(), _reference(image, connectivity, largest=1) != 0)
        expected = _reference(image, connectivity, min_size=4)
        assert np.array_equal(labels[i, 0].cpu().numpy(), expected)
        assert int(counts[i]) == expected.max(initial=0)


@needs_torch
def test_torch_results_leave_by_dlpack():
    image = torch.from_numpy(random_image((50, 60), 45, 1, seed=2)).cuda()
    labels, n = ccl.label(image, largest=2, dtype="int64")
    again = torch.from_dlpack(labels)
    assert again.data_ptr() == labels.data_ptr() and int(again.max()) == n


@needs_cupy
def test_dlpack_only_inputs_and_outputs():
    class OnlyDlpack:
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, **kwargs):
            return self.array.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    image = random_image((40, 50), 50, 1, seed=4)
    labels, n = ccl.label(OnlyDlpack(cp.asarray(image)), 8, min_size=2)
    assert hasattr(labels, "__dlpack__")
    out = cp.from_dlpack(labels)
    assert np.array_equal(out.get(), _reference(image, 8, min_size=2))


# ------------------------------------------------------------- analyze with the clean-up


def _features_of_labels(labels: np.ndarray, n: int) -> dict:
    """Reference features of canonical labels 1..n of any dimension, from numpy: areas,
    inclusive boxes (x the last axis), coordinate sums and centroids (x first)."""
    flat = labels.ravel().astype(np.int64)
    axes = labels.ndim
    names = "xyz"[:axes]
    coordinates = np.indices(labels.shape).reshape(axes, -1)[::-1]  # x, y (, z)
    features = {"area": np.bincount(flat, minlength=n + 1)[1:].astype(np.uint32)}
    boxes = ndimage.find_objects(labels.astype(np.int32), max_label=n)
    for a, name in enumerate(names):
        axis = axes - 1 - a
        features[f"{name}_min"] = np.array([b[axis].start for b in boxes], np.uint32)
        features[f"{name}_max"] = np.array([b[axis].stop - 1 for b in boxes], np.uint32)
    sums = [np.bincount(flat, weights=c, minlength=n + 1)[1:] for c in coordinates]
    for name, s in zip(names, sums):
        features[f"sum_{name}"] = s.astype(np.uint64)
    features["centroids"] = (np.stack(sums, axis=1) / features["area"][:, None]).reshape(n, axes)
    return features


def _assert_features_equal(features, labels: np.ndarray, n: int, context: str) -> None:
    """``features`` (any framework) are exactly those of ``labels``' components 1..n."""
    expected = _features_of_labels(labels, n)
    kind = ccl.Features if labels.ndim == 2 else ccl.VolumeFeatures
    assert type(features) is kind, f"{context}: {type(features).__name__}"
    assert sorted(features._fields) == sorted(expected), context
    for name, want in expected.items():
        got = to_numpy(getattr(features, name))
        assert got.shape == want.shape, f"{context}: {name} {got.shape}, expected {want.shape}"
        np.testing.assert_array_equal(got.astype(want.dtype), want, err_msg=f"{context}: {name}")


ANALYZE_FILTERS = dict(FILTERS, **{
    "extents 2x3..": dict(min_extent=(2, 3)),
    "extents ..5x9": dict(max_extent=(5, 9)),
    "sizes 3..40, extents 2x2..12x30, largest 5": dict(min_size=3, max_size=40, largest=5,
                                                       min_extent=(2, 2), max_extent=(12, 30)),
    "sizes ..3, largest 2": dict(max_size=3, largest=2),
})  # fmt: skip

VOLUME_FILTERS = dict(FILTERS, **{
    "extents 2x2x2..": dict(min_extent=(2, 2, 2)),
    "extents ..1x9x9, largest 3": dict(max_extent=(1, 9, 9), largest=3),
    "sizes 2..30, extents ..4x5x6": dict(min_size=2, max_size=30, max_extent=(4, 5, 6)),
})  # fmt: skip


@pytest.mark.parametrize("filter_id", sorted(ANALYZE_FILTERS))
@pytest.mark.parametrize("connectivity", (4, 8))
def test_analyze_keeps_the_features_of_what_label_keeps(filter_id, connectivity):
    """Entry i of analyze(..., keywords) is label i + 1 of label(..., keywords), on every
    variant that analyzes; the labels themselves are the scipy reference's."""
    options = ANALYZE_FILTERS[filter_id]
    for image_id in sorted(IMAGES):
        image = _image(image_id)
        labels, n = ccl.label(image, connectivity, **options)
        assert np.array_equal(labels, _reference(image, connectivity, **options))
        for algorithm in algorithm_names("analyze", connectivity):
            features = ccl.analyze(image, connectivity, algorithm=algorithm, **options)
            _assert_features_equal(features, labels, n, f"{algorithm} {image_id} {filter_id}")


def test_analyze_removes_what_the_clean_up_removes():
    """Not a no-op: the keywords drop features (a test that ignored them would fail)."""
    image = _image("noise 64x64 55%")
    everything = ccl.analyze(image, 4)
    for options in ANALYZE_FILTERS.values():
        kept = ccl.analyze(image, 4, **options)
        n = ccl.label(image, 4, **options)[1]
        assert len(kept.area) == n
        if n < len(everything.area):
            assert len(kept.area) < len(everything.area)
    assert len(ccl.analyze(image, 4, largest=3).area) == 3
    assert (ccl.analyze(image, 4, min_size=5).area >= 5).all()


@pytest.mark.parametrize("filter_id", sorted(VOLUME_FILTERS))
@pytest.mark.parametrize("connectivity", (6, 18, 26))
def test_analyze_volumes_keeps_the_features_of_what_label_keeps(filter_id, connectivity):
    options = VOLUME_FILTERS[filter_id]
    volume = _noise((14, 19, 17), 30, seed=connectivity)
    labels, n = ccl.label(volume, connectivity, **options)
    assert np.array_equal(labels, _reference(volume, connectivity, **options))
    for algorithm in algorithm_names("analyze", connectivity):
        features = ccl.analyze(volume, connectivity, algorithm=algorithm, **options)
        _assert_features_equal(features, labels, n, f"{algorithm} {filter_id}")


@pytest.mark.parametrize("connectivity", (4, 8))
def test_analyze_batches_clean_each_image_alone(connectivity):
    batch = np.stack([_image(i)[:48, :53] for i in sorted(IMAGES)] + [np.zeros((48, 53), bool)])
    for filter_id, options in sorted(ANALYZE_FILTERS.items()):
        labels, counts = ccl.label(batch, connectivity, batch=True, **options)
        features = ccl.analyze(batch[:, None], connectivity, batch=True, **options)
        assert isinstance(features, list) and len(features) == len(batch)
        for i in range(len(batch)):
            _assert_features_equal(features[i], labels[i], int(counts[i]), f"{filter_id} {i}")


@pytest.mark.parametrize("connectivity, cap", [(4, "12KB"), (8, "40KB"), (26, "40KB")])
def test_analyze_in_strips_cleans_up_the_whole_array(connectivity, cap):
    """Strips (here of the CPU labeler) keep what the whole array's clean-up keeps."""
    array = (_image("blobs 80x70 50%") if connectivity in (4, 8)
             else _noise((13, 17, 19), 30, seed=5))  # fmt: skip
    filters = ANALYZE_FILTERS if array.ndim == 2 else VOLUME_FILTERS
    for filter_id, options in sorted(filters.items()):
        labels, n = ccl.label(array, connectivity, **options)
        features = ccl.analyze(array, connectivity, algorithm="cpu-rle", max_gpu_memory=cap,
                               **options)  # fmt: skip
        _assert_features_equal(features, labels, n, f"strips {filter_id}")


def test_analyze_of_empty_arrays_with_the_clean_up():
    for array, options in [(np.zeros((0, 7), bool), dict(largest=2)),
                           (np.zeros((5, 6), bool), dict(min_size=1, max_extent=(2, 2))),
                           (np.zeros((3, 0, 4), np.uint8), dict(min_extent=(1, 1, 1))),
                           (np.zeros((0, 4, 4), np.uint8), dict(largest=0))]:  # fmt: skip
        features = ccl.analyze(array, **options)
        assert len(features.area) == 0 and features.area.dtype == np.uint32
        assert features.centroids.shape == (0, array.ndim)
    assert ccl.analyze(np.zeros((0, 4, 4), np.uint8), batch=True, largest=1) == []


@pytest.mark.parametrize(
    "array, options, match",
    [
        (np.ones((6, 7)), dict(largest=-1), "at least 0"),
        (np.ones((6, 7)), dict(largest=2.0), "integer"),
        (np.ones((6, 7)), dict(min_size=5, max_size=4), "exceeds"),
        (np.ones((6, 7)), dict(max_size=-3), "at least 0"),
        (np.ones((6, 7)), dict(min_extent=(1, 2, 3)), "2 extents"),
        (np.ones((6, 7)), dict(max_extent=4), "tuple of extents"),
        (np.ones((6, 7)), dict(min_extent=(4, 4), max_extent=(3, 9)), "exceeds"),
        (np.ones((3, 6, 7)), dict(min_extent=(1, 2)), "3 extents"),
        (np.ones((3, 6, 7)), dict(max_extent=(1, 2, 3, 4)), "3 extents"),
        (np.ones((3, 6, 7)), dict(min_extent=(1, 2, 3), batch=True), "2 extents"),
        (np.ones((0, 6, 7)), dict(max_extent=(1, 2, 3), batch=True), "2 extents"),
        (np.ones((6, 7)), dict(min_extent=(1, 2, 3), max_gpu_memory="1MB",
                               algorithm="cpu-rle"), "2 extents"),
    ],
)  # fmt: skip
def test_analyze_refuses_what_label_refuses(array, options, match):
    """The same ValueError, word for word, as label's with the same keywords."""
    with pytest.raises(ValueError, match=match) as analyzed:
        ccl.analyze(array, **options)
    with pytest.raises(ValueError, match=match) as labeled:
        ccl.label(array, **{k: v for k, v in options.items() if k != "max_gpu_memory"})
    assert str(analyzed.value) == str(labeled.value)


@needs_cupy
@pytest.mark.parametrize("connectivity", (4, 8, 6, 26))
def test_cupy_analyze_with_the_clean_up_stays_on_the_device(connectivity):
    volume = connectivity in (6, 26)
    image = _noise((16, 30, 28) if volume else (90, 77), 40, seed=5)
    for filter_id, options in sorted((VOLUME_FILTERS if volume else ANALYZE_FILTERS).items()):
        labels, n = ccl.label(image, connectivity, **options)
        for algorithm in [None] + algorithm_names("analyze", connectivity, backend="cuda"):
            features = ccl.analyze(cp.asarray(image), connectivity, algorithm=algorithm, **options)
            context = f"{algorithm} {filter_id}"
            assert all(isinstance(f, cp.ndarray) for f in features), context
            _assert_features_equal(features, labels, n, context)


@needs_cupy
@pytest.mark.parametrize("connectivity", (4, 8))
def test_cupy_analyze_batches_with_the_clean_up(connectivity):
    rng = np.random.default_rng(connectivity)
    batch = (rng.random((9, 61, 47)) < rng.random((9, 1, 1))).astype(np.uint8)
    for filter_id, options in sorted(ANALYZE_FILTERS.items()):
        labels, counts = ccl.label(batch, connectivity, batch=True, **options)
        features = ccl.analyze(cp.asarray(batch), connectivity, batch=True, **options)
        for i, image_features in enumerate(features):
            assert isinstance(image_features.area, cp.ndarray)
            _assert_features_equal(image_features, labels[i], int(counts[i]), f"{filter_id} {i}")


@needs_torch
@pytest.mark.parametrize("connectivity", (4, 8, 18))
def test_torch_analyze_with_the_clean_up_stays_on_the_device(connectivity):
    volume = connectivity == 18
    image = _noise((12, 33, 29) if volume else (70, 83), 45, seed=7)
    for filter_id, options in sorted((VOLUME_FILTERS if volume else ANALYZE_FILTERS).items()):
        labels, n = ccl.label(image, connectivity, **options)
        features = ccl.analyze(torch.from_numpy(image).cuda(), connectivity, **options)
        assert all(f.is_cuda for f in features), filter_id
        _assert_features_equal(features, labels, n, filter_id)
    batch = np.stack([image] * 2 + [~image]) if not volume else None
    if batch is not None:
        labels, counts = ccl.label(batch, connectivity, batch=True, largest=3, min_size=2)
        features = ccl.analyze(torch.from_numpy(batch).cuda()[:, None], connectivity, batch=True,
                               largest=3, min_size=2)  # fmt: skip
        for i, image_features in enumerate(features):
            assert image_features.area.is_cuda
            _assert_features_equal(image_features, labels[i], int(counts[i]), f"image {i}")
