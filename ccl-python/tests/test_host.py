"""`ccl` on host arrays gives exactly scipy's and OpenCV's results.

What this proves, for numpy inputs (and Python lists and torch CPU tensors where torch is
installed):

* `ccl.label` returns scipy.ndimage.label's labels and count exactly (same partition and the
  same raster-order numbering), as uint32 labels and a Python int;
* `ccl.connected_components_with_stats` returns exactly OpenCV's
  `connectedComponentsWithStatsWithAlgorithm(img8, c, CV_32S, CCL_WU)`: n, int32 labels, int32
  stats and bit-identical float64 centroids, except the documented background row of an image
  without background;
* `ccl.analyze` returns the area, inclusive bounding box, coordinate sums and centroids
  computed from the reference labels;
* on random images (densities 0..100 %, granularities 1 / 4 / 16, odd sizes), pattern images
  and the real PNGs of ccl-testdata (whose component counts match components.json), in both
  connectivities, with the default algorithm and with every available algorithm by name;
* for every dtype of the spec (NaN foreground, -0.0 background, values whose low byte is 0)
  and every layout (C, F, strided, windows, transposes, negative strides, broadcasts,
  read-only), without modifying the input;
* `ccl.algorithms()` describes the registry as the spec says.
"""

from __future__ import annotations

import zlib

import cv2
import numpy as np
import pytest

import ccl
from conftest import (
    ALGORITHM_FIELDS,
    ALGORITHMS,
    ALL_CASES,
    CONNECTIVITIES,
    DTYPES,
    LAYOUTS,
    SMALL_CASES,
    algorithm_info,
    algorithm_names,
    assert_labels_equal,
    case_image,
    case_oracle,
    check_features,
    check_label_result,
    check_stats_result,
    compute_oracle,
    encode,
    host_has_nvidia_gpu,
    random_image,
    real_image_names,
    to_numpy,
    with_layout,
)

# --------------------------------------------------------------------------------------------
# Parametrization: the default algorithm over every image, each named algorithm over fewer
# --------------------------------------------------------------------------------------------


def _matrix(task: str):
    params = []
    for connectivity in CONNECTIVITIES:
        for case in ALL_CASES:
            params.append(
                pytest.param(None, connectivity, case.id, id=f"default-c{connectivity}-{case.id}")
            )
        for name in algorithm_names(task, connectivity):
            for case in SMALL_CASES:
                case_id = f"{name}-c{connectivity}-{case.id}"
                params.append(pytest.param(name, connectivity, case.id, id=case_id))
    return params


def _context(algorithm, connectivity, case_id, extra=""):
    name = algorithm or "default"
    return f"[{name}, connectivity {connectivity}, {case_id}{extra}]"


@pytest.mark.parametrize("algorithm, connectivity, case_id", _matrix("label"))
def test_label_matches_scipy(algorithm, connectivity, case_id):
    image = case_image(case_id).copy()
    result = ccl.label(image, connectivity=connectivity, algorithm=algorithm)
    context = _context(algorithm, connectivity, case_id)
    check_label_result(result, case_oracle(case_id, connectivity), image.shape, context)


@pytest.mark.parametrize("algorithm, connectivity, case_id", _matrix("label"))
def test_connected_components_with_stats_matches_opencv(algorithm, connectivity, case_id):
    image = case_image(case_id).copy()
    context = _context(algorithm, connectivity, case_id)
    if algorithm is not None and "analyze" not in algorithm_info(algorithm).tasks:
        # A label-only variant: the spec allows refusing a task it lacks; if it answers, the
        # answer must be exact.
        try:
            result = ccl.connected_components_with_stats(image, connectivity, algorithm=algorithm)
        except ValueError as error:
            assert str(error), context
            return
    else:
        result = ccl.connected_components_with_stats(image, connectivity, algorithm=algorithm)
    check_stats_result(result, case_oracle(case_id, connectivity), image.shape, context)


@pytest.mark.parametrize("algorithm, connectivity, case_id", _matrix("analyze"))
def test_analyze_matches_reference_features(algorithm, connectivity, case_id):
    image = case_image(case_id).copy()
    features = ccl.analyze(image, connectivity=connectivity, algorithm=algorithm)
    context = _context(algorithm, connectivity, case_id)
    check_features(features, case_oracle(case_id, connectivity), context)


# --------------------------------------------------------------------------------------------
# Real images: the counts of components.json
# --------------------------------------------------------------------------------------------


def test_real_images_are_there():
    assert len(real_image_names()) >= 1, "no PNG in ccl-testdata/data/real"


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("name", real_image_names())
def test_real_image_component_counts(name, connectivity, components_json):
    expected = components_json[name][str(connectivity)]["components"]
    image = case_image(f"real-{name}").copy()
    _, n = ccl.label(image, connectivity=connectivity)
    assert n == expected, f"{name}, connectivity {connectivity}: {n} != components.json {expected}"
    n_cv, _, stats, _ = ccl.connected_components_with_stats(image, connectivity)
    assert n_cv == expected + 1
    features = ccl.analyze(image, connectivity)
    assert len(features.area) == expected
    assert int(features.area.sum()) == int(image.sum())
    assert int(stats[1:, 4].sum()) == int(image.sum())


# --------------------------------------------------------------------------------------------
# Every dtype and layout (default algorithm), and a few for every named algorithm
# --------------------------------------------------------------------------------------------

DTYPE_LAYOUT_CASES = (
    "random-37x53-d50-g1",
    "random-129x100-d60-g4",
    "random-1x97-d50-g1",
    "spiral-37x53",
)


def _encoded(case_id, dtype, layout):
    binary = case_image(case_id)
    seed = zlib.crc32(f"{case_id}/{np.dtype(dtype).str}/{layout}".encode())
    values = encode(binary, dtype, seed)
    return with_layout(values, layout, seed)


def _dtype_id(dtype):
    return np.dtype(dtype).name


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES, ids=_dtype_id)
def test_every_dtype_and_layout(dtype, layout, connectivity):
    for case_id in DTYPE_LAYOUT_CASES:
        image = _encoded(case_id, dtype, layout)
        before = image.copy()
        oracle = case_oracle(case_id, connectivity)
        context = f"[default, {np.dtype(dtype).name}, {layout}, c{connectivity}, {case_id}]"
        check_label_result(ccl.label(image, connectivity), oracle, image.shape, context)
        check_stats_result(
            ccl.connected_components_with_stats(image, connectivity), oracle, image.shape, context
        )
        check_features(ccl.analyze(image, connectivity), oracle, context)
        assert np.array_equal(image, before, equal_nan=image.dtype.kind == "f"), (
            f"{context}: the input was modified"
        )


def _named_layout_params():
    params = []
    for connectivity in CONNECTIVITIES:
        for name in algorithm_names("label", connectivity):
            for dtype in (np.bool_, np.float32, np.int64):
                for layout in ("F", "strided", "reversed-window"):
                    params.append(
                        pytest.param(
                            name,
                            connectivity,
                            dtype,
                            layout,
                            id=f"{name}-c{connectivity}-{np.dtype(dtype).name}-{layout}",
                        )
                    )
    return params


@pytest.mark.parametrize("algorithm, connectivity, dtype, layout", _named_layout_params())
def test_named_algorithm_dtypes_and_layouts(algorithm, connectivity, dtype, layout):
    analyzes = "analyze" in algorithm_info(algorithm).tasks
    for case_id in DTYPE_LAYOUT_CASES:
        image = _encoded(case_id, dtype, layout)
        oracle = case_oracle(case_id, connectivity)
        context = f"[{algorithm}, {np.dtype(dtype).name}, {layout}, c{connectivity}, {case_id}]"
        result = ccl.label(image, connectivity, algorithm=algorithm)
        check_label_result(result, oracle, image.shape, context)
        if analyzes:
            check_stats_result(
                ccl.connected_components_with_stats(image, connectivity, algorithm=algorithm),
                oracle,
                image.shape,
                context,
            )
            check_features(ccl.analyze(image, connectivity, algorithm=algorithm), oracle, context)


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_float_special_values(connectivity):
    """-0.0 is background; NaN, +-inf and subnormals are foreground, in every float dtype."""
    for dtype in (np.float16, np.float32, np.float64):
        tiny = np.finfo(dtype).smallest_subnormal
        image = np.array(
            [
                [-0.0, np.nan, -0.0, 0.0, np.inf],
                [0.0, -0.0, 0.0, -0.0, 0.0],
                [-np.inf, 0.0, tiny, -0.0, -tiny],
            ],
            dtype=dtype,
        )
        binary = image != 0
        oracle = compute_oracle(binary, connectivity)
        context = f"[float specials, {np.dtype(dtype).name}, c{connectivity}]"
        check_label_result(ccl.label(image, connectivity), oracle, image.shape, context)
        labels, n = ccl.label(image, connectivity)
        assert n == 5
        assert labels[0, 0] == 0 and labels[1, 1] == 0, f"{context}: -0.0 must be background"


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_integer_values_with_zero_low_byte(connectivity):
    """256, 65536, 2**32, -256: nonzero although their lowest byte (or 32 bits) is zero."""
    cases = [
        (np.uint16, 256),
        (np.int16, -256),
        (np.uint32, 1 << 16),
        (np.int32, 1 << 24),
        (np.uint64, 1 << 32),
        (np.int64, -(1 << 40)),
    ]
    binary = random_image((31, 45), 45, 1, seed=5)
    oracle = compute_oracle(binary, connectivity)
    for dtype, value in cases:
        image = np.where(binary, value, 0).astype(dtype)
        context = f"[{np.dtype(dtype).name} value {value}, c{connectivity}]"
        check_label_result(ccl.label(image, connectivity), oracle, image.shape, context)
        check_features(ccl.analyze(image, connectivity), oracle, context)


def test_read_only_input():
    binary = random_image((50, 61), 50, 1, seed=11)
    image = binary.astype(np.uint8)
    image.flags.writeable = False
    for connectivity in CONNECTIVITIES:
        oracle = compute_oracle(binary, connectivity)
        context = f"[read-only, c{connectivity}]"
        check_label_result(ccl.label(image, connectivity), oracle, image.shape, context)
        check_stats_result(
            ccl.connected_components_with_stats(image, connectivity), oracle, image.shape, context
        )
        check_features(ccl.analyze(image, connectivity), oracle, context)


def test_broadcast_input_with_zero_strides():
    """A view with a zero stride (np.broadcast_to): every row is the same memory."""
    row = (np.arange(83) % 5 < 2).astype(np.uint8)
    image = np.broadcast_to(row, (40, 83))
    assert image.strides[0] == 0
    column = (np.arange(40) % 3 == 0).astype(np.float32)[:, None]
    image_cols = np.broadcast_to(column, (40, 83))
    assert image_cols.strides[1] == 0
    for view in (image, image_cols):
        for connectivity in CONNECTIVITIES:
            oracle = compute_oracle(np.asarray(view) != 0, connectivity)
            context = f"[broadcast strides {view.strides}, c{connectivity}]"
            check_label_result(ccl.label(view, connectivity), oracle, view.shape, context)
            check_stats_result(
                ccl.connected_components_with_stats(view, connectivity),
                oracle,
                view.shape,
                context,
            )


def test_results_do_not_alias_the_input():
    image = random_image((20, 30), 50, 1, seed=2).astype(np.uint32)
    before = image.copy()
    labels, _ = ccl.label(image)
    assert not np.shares_memory(labels, image)
    if labels.flags.writeable:
        labels[...] = 7  # writing into the result leaves the input alone
    assert np.array_equal(image, before)


# --------------------------------------------------------------------------------------------
# Other host array-likes: lists, torch CPU tensors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_nested_lists(connectivity):
    binary = random_image((9, 13), 50, 1, seed=3)
    oracle = compute_oracle(binary, connectivity)
    for as_list in (binary.tolist(), binary.astype(int).tolist(), binary.astype(float).tolist()):
        context = f"[list of {type(as_list[0][0]).__name__}, c{connectivity}]"
        check_label_result(ccl.label(as_list, connectivity), oracle, binary.shape, context)
        check_stats_result(
            ccl.connected_components_with_stats(as_list, connectivity),
            oracle,
            binary.shape,
            context,
        )
        check_features(ccl.analyze(as_list, connectivity), oracle, context)


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_torch_cpu_tensors(connectivity):
    torch = pytest.importorskip("torch")
    label_dtype = torch.uint32 if hasattr(torch, "uint32") else torch.int32
    binary = random_image((67, 45), 55, 1, seed=4)
    oracle = compute_oracle(binary, connectivity)
    base = torch.from_numpy(encode(binary, np.float32, 9))
    views = {
        "C": base.clone(),
        "F": base.t().contiguous().t(),
        "strided": torch.ones(2 * 67, 3 * 45)[::2, ::3],
        "bool": base != 0,
        "uint8": (base != 0).to(torch.uint8),
    }
    views["strided"].copy_(base)
    for layout, tensor in views.items():
        context = f"[torch CPU {layout}, c{connectivity}]"
        labels, n = ccl.label(tensor, connectivity)
        assert isinstance(labels, torch.Tensor), f"{context}: labels is {type(labels)}"
        assert labels.device.type == "cpu"
        assert labels.dtype == label_dtype, f"{context}: {labels.dtype} != {label_dtype}"
        check_label_result((to_numpy(labels, np.uint32), n), oracle, binary.shape, context)
        n_cv, labels_cv, stats, centroids = ccl.connected_components_with_stats(
            tensor, connectivity
        )
        for name, value, dtype in (
            ("labels", labels_cv, torch.int32),
            ("stats", stats, torch.int32),
            ("centroids", centroids, torch.float64),
        ):
            assert isinstance(value, torch.Tensor), f"{context}: {name} is {type(value)}"
            assert value.dtype == dtype, f"{context}: {name} dtype {value.dtype} != {dtype}"
        check_stats_result(
            (n_cv, labels_cv.numpy(), stats.numpy(), centroids.numpy()),
            oracle,
            binary.shape,
            context,
        )
        check_features(ccl.analyze(tensor, connectivity), oracle, context, require_numpy=False)


# --------------------------------------------------------------------------------------------
# Arguments, defaults, the degenerate image without background
# --------------------------------------------------------------------------------------------


def test_default_connectivity_is_8_and_arguments_are_positional_or_keyword():
    image = np.eye(6, dtype=np.uint8)  # a diagonal: 1 component under 8, 6 under 4
    assert ccl.label(image)[1] == 1
    assert ccl.label(image, 4)[1] == 6
    assert ccl.label(image, connectivity=4, algorithm=None)[1] == 6
    assert ccl.label(image, 8, algorithm="cpu-uf")[1] == 1
    assert ccl.connected_components_with_stats(image)[0] == 2
    assert ccl.connected_components_with_stats(image, 4, algorithm="cpu-rle")[0] == 7
    assert len(ccl.analyze(image).area) == 1
    assert len(ccl.analyze(image, 4, algorithm="cpu-rle-1t").area) == 6


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (9, 1), (5, 7), (64, 64), (33, 130)])
def test_image_without_background(shape, connectivity):
    """All foreground: one component; row 0 is what OpenCV 5 writes, [-1, INT_MAX, 0, 0, 0], NaN."""
    image = np.ones(shape, dtype=np.uint8)
    h, w = shape
    oracle = compute_oracle(image, connectivity)
    context = f"[all foreground {shape}, c{connectivity}]"

    labels, n = ccl.label(image, connectivity)
    assert n == 1 and labels.dtype == np.uint32 and (labels == 1).all(), context

    n, labels, stats, centroids = ccl.connected_components_with_stats(image, connectivity)
    assert n == 2 == oracle.cv_n, context
    assert labels.dtype == np.int32 and (labels == 1).all(), context
    assert stats.dtype == np.int32 and stats.shape == (2, 5), context
    assert stats[0].tolist() == [-1, 2**31 - 1, 0, 0, 0], f"{context}: row 0 is {stats[0].tolist()}"
    assert np.array_equal(stats, oracle.cv_stats), context
    assert stats[1].tolist() == [0, 0, w, h, h * w], f"{context}: row 1 is {stats[1].tolist()}"
    assert np.array_equal(stats[1], oracle.cv_stats[1]), context
    assert centroids.dtype == np.float64 and centroids.shape == (2, 2), context
    assert np.isnan(centroids[0]).all(), f"{context}: centroid 0 is {centroids[0]}"
    assert np.array_equal(centroids[1], oracle.cv_centroids[1]), context
    assert centroids[1].tolist() == [(w - 1) / 2, (h - 1) / 2], context

    features = ccl.analyze(image, connectivity)
    assert features.area.tolist() == [h * w]
    assert (features.x_min.tolist(), features.y_min.tolist()) == ([0], [0])
    assert (features.x_max.tolist(), features.y_max.tolist()) == ([w - 1], [h - 1])
    check_features(features, oracle, context)


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_image_without_foreground(connectivity):
    image = np.zeros((6, 9), dtype=np.float64)
    labels, n = ccl.label(image, connectivity)
    assert n == 0 and labels.dtype == np.uint32 and not labels.any()
    n, labels, stats, centroids = ccl.connected_components_with_stats(image, connectivity)
    assert n == 1 and not labels.any()
    assert stats.tolist() == [[0, 0, 9, 6, 54]]
    assert centroids.tolist() == [[4.0, 2.5]]
    features = ccl.analyze(image, connectivity)
    for name in ("area", "x_min", "y_min", "x_max", "y_max", "sum_x", "sum_y"):
        assert getattr(features, name).shape == (0,), name
    assert features.centroids.shape == (0, 2)
    assert features.area.dtype == np.uint32 and features.sum_x.dtype == np.uint64
    assert features.centroids.dtype == np.float64


def test_labels_are_identical_across_algorithms():
    """Determinism: every available algorithm gives the same canonical labels and features."""
    image = random_image((300, 211), 55, 1, seed=21)
    for connectivity in CONNECTIVITIES:
        reference, n_ref = ccl.label(image, connectivity, algorithm="cpu-uf")
        for name in algorithm_names("label", connectivity):
            for _ in range(2):
                labels, n = ccl.label(image, connectivity, algorithm=name)
                assert n == n_ref, f"{name}, c{connectivity}: {n} != cpu-uf's {n_ref}"
                assert_labels_equal(labels, reference, f"[{name} vs cpu-uf, c{connectivity}]")


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------


def test_algorithms_listing():
    infos = ccl.algorithms()
    assert isinstance(infos, list) and infos, "algorithms() must return a non-empty list"
    names = [info.name for info in infos]
    assert names == sorted(names), f"not sorted by name: {names}"
    assert len(set(names)) == len(names), f"duplicate names: {names}"
    for required in ("cpu-uf", "cpu-rle", "cpu-rle-1t"):
        assert required in names, f"{required} missing from {names}"
    for info in infos:
        assert isinstance(info, ccl.AlgorithmInfo), type(info)
        assert isinstance(info, tuple)
        assert tuple(info._fields) == ALGORITHM_FIELDS, info._fields
        assert isinstance(info.name, str) and info.name, info
        assert info.backend in ("cpu", "cuda"), info
        assert isinstance(info.connectivities, tuple) and info.connectivities, info
        assert all(type(c) is int and c in (4, 8, 6, 18, 26) for c in info.connectivities), info
        assert isinstance(info.tasks, tuple) and info.tasks, info
        assert all(task in ("label", "analyze") for task in info.tasks), info
        assert type(info.available) is bool, info
        if info.available:
            assert info.reason is None, f"{info.name} is available but has a reason"
        else:
            assert isinstance(info.reason, str) and info.reason.strip(), (
                f"{info.name} is unavailable without a reason"
            )
        assert isinstance(info.summary, str) and info.summary.strip(), info
        assert type(info.priority) is int, info
    by_name = {info.name: info for info in infos}
    for name in ("cpu-uf", "cpu-rle", "cpu-rle-1t"):
        info = by_name[name]
        assert info.available and info.backend == "cpu", info
        assert set(info.connectivities) == {4, 8, 6, 18, 26}, info
        assert set(info.tasks) == {"label", "analyze"}, info
    # Collection read the same registry.
    assert [info.name for info in ALGORITHMS] == names


def test_cuda_algorithms_listed_and_unavailable_without_gpu():
    cuda = [info for info in ccl.algorithms() if info.backend == "cuda"]
    assert cuda, "no CUDA algorithm is registered"
    if host_has_nvidia_gpu():
        pytest.skip("this machine has an NVIDIA GPU; availability is checked in test_gpu.py")
    for info in cuda:
        assert not info.available, f"{info.name} claims to be available on a machine without GPU"
        assert isinstance(info.reason, str) and info.reason.strip(), info


@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_opencv_s_own_calls_give_opencv_s_own_output(connectivity):
    """OpenCV's signatures (ltype, ccltype) give exactly what OpenCV returns, row 0 included."""
    if int(cv2.__version__.split(".")[0]) < 5:
        pytest.skip(f"OpenCV {cv2.__version__} writes an undefined row 0 without background")

    images = [random_image((61, 47), 45, 1, seed=5), np.ones((7, 9), np.uint8)]
    for image in images:
        image8 = image.astype(np.uint8)
        for ltype in (cv2.CV_32S, cv2.CV_16U):
            expected = cv2.connectedComponentsWithStats(
                image8, connectivity=connectivity, ltype=ltype
            )
            if connectivity == 8:  # OpenCV's default numbers 8-connected ones otherwise
                expected = cv2.connectedComponentsWithStatsWithAlgorithm(
                    image8, connectivity, ltype, cv2.CCL_WU
                )
            got = ccl.connected_components_with_stats(image8, connectivity, ltype)
            assert got[0] == expected[0]
            for ours, theirs in zip(got[1:], expected[1:]):
                assert ours.dtype == theirs.dtype
                assert np.array_equal(ours, theirs, equal_nan=True)
            n, labels = ccl.connected_components(image8, connectivity=connectivity, ltype=ltype)
            assert n == expected[0] and np.array_equal(labels, expected[1])
        ccltypes = [t for t in range(-1, 6) if connectivity == 4 or t in (cv2.CCL_WU, cv2.CCL_SAUF)]
        for ccltype in ccltypes:
            expected = cv2.connectedComponentsWithStatsWithAlgorithm(
                image8, connectivity, cv2.CV_32S, ccltype
            )
            got = ccl.connected_components_with_stats_with_algorithm(
                image8, connectivity, cv2.CV_32S, ccltype
            )
            assert got[0] == expected[0]
            for ours, theirs in zip(got[1:], expected[1:]):
                assert np.array_equal(ours, theirs, equal_nan=True), ccltype


# --------------------------------------------------------------------------------------------
# out=: the labels of a host image written into the caller's array
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.uint32, np.int32])
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_out_reused_across_images_gives_scipy_labels(connectivity, dtype):
    """One array per shape, reused over densities and granularities, dirty before each call."""
    algorithms = [None] + algorithm_names("label", connectivity)
    for shape in [(37, 71), (64, 64), (130, 33)]:
        out = np.empty(shape, dtype)
        for algorithm in algorithms:
            for seed, (density, granularity) in enumerate(
                [(0, 1), (10, 1), (50, 1), (60, 4), (90, 16), (100, 1)]
            ):
                image = random_image(shape, density, granularity, seed)
                out.fill(-1 if dtype == np.int32 else 0xFFFFFFFF)
                labels, n = ccl.label(image, connectivity, algorithm=algorithm, out=out)
                assert labels is out
                oracle = compute_oracle(image, connectivity)
                expected, expected_n = oracle.labels, oracle.n
                context = f"{algorithm} {shape} d={density} g={granularity}"
                assert n == expected_n, context
                assert_labels_equal(out.astype(np.uint32), expected, context)


def test_out_of_an_empty_image():
    out = np.empty((0, 5), np.uint32)
    labels, n = ccl.label(np.zeros((0, 5), bool), out=out)
    assert labels is out and n == 0


@pytest.mark.parametrize(
    "out, message",
    [
        (np.zeros((4, 6), np.uint32), "shape"),
        (np.zeros((6, 4), np.uint16), "dtype"),
        (np.zeros((6, 4), np.float32), "dtype"),
        (np.zeros((4, 6), np.uint32).T, "C-contiguous"),
        (np.zeros((6, 8), np.uint32)[:, ::2], "C-contiguous"),
        ([[0] * 4] * 6, "numpy array"),
    ],
)
def test_out_that_cannot_take_the_labels_is_refused(out, message):
    with pytest.raises(ValueError, match=message):
        ccl.label(np.ones((6, 4), bool), out=out)


def test_out_that_is_read_only_or_the_image_is_refused():
    out = np.zeros((6, 4), np.uint32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        ccl.label(np.ones((6, 4), bool), out=out)
    out = np.ones((6, 4), np.uint32)
    # Bytes read in place (unit column stride) that lie in `out`.
    image = out.view(np.uint8)[:, :4]
    with pytest.raises(ValueError, match="shares memory"):
        ccl.label(image, out=out)
