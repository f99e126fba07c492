"""`ccl` on CUDA arrays (CuPy, torch) gives exactly OpenCV's / scipy's results, on the device.

What this proves where CuPy and / or torch see a CUDA device (everything here is skipped
otherwise, e.g. on CI):

* CuPy arrays and CUDA torch tensors come back as the same framework's arrays on the input's
  device (another GPU than the current one included), with the spec's dtypes, and their values
  equal OpenCV's / scipy's on the host copy: for bool / uint8 / int32 / float32 inputs in C, F,
  strided, windowed, transposed (and, for CuPy, reversed) layouts, in both connectivities, for
  `label`, `connected_components_with_stats` and `analyze`;
* the caller's current stream is honoured: an input produced asynchronously on a non-blocking
  CuPy stream or a side torch stream, right before the call, is labeled exactly;
* every available CUDA algorithm, by name, gives exact results on device arrays and on host
  numpy arrays (which are uploaded, the results coming back as numpy);
* a CUDA array with a CPU algorithm is a ValueError;
* eight threads labeling CuPy arrays at once, each on its own stream, all get exact results;
* when CuPy sees a GPU, the CUDA algorithms report themselves available.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import ccl
from conftest import (
    CONNECTIVITIES,
    algorithm_info,
    algorithm_names,
    case_image,
    case_oracle,
    check_features,
    check_label_result,
    check_stats_result,
    compute_oracle,
    encode,
    random_image,
    to_numpy,
)


def _import_cupy():
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
        return cupy
    except Exception:  # not installed, or no driver / device
        return None


def _import_torch_cuda():
    try:
        import torch

        if not torch.cuda.is_available():
            return None
        return torch
    except Exception:
        return None


cp = _import_cupy()
torch = _import_torch_cuda()

needs_cupy = pytest.mark.skipif(cp is None, reason="CuPy with a CUDA device is not available")
needs_torch = pytest.mark.skipif(
    torch is None, reason="torch with a CUDA device is not available"
)

if cp is None and torch is None:
    pytestmark = pytest.mark.skip(reason="no CUDA device through CuPy or torch")

GPU_CASES = (
    "random-256x256-d50-g1",
    "random-129x100-d60-g4",
    "random-1000x7-d60-g1",
    "spiral-37x53",
    "real-text",
)
GPU_DTYPES = (np.bool_, np.uint8, np.int32, np.float32)
CUPY_LAYOUTS = ("C", "F", "strided", "window", "transposed", "reversed")
TORCH_LAYOUTS = ("C", "F", "strided", "window", "transposed")



# --------------------------------------------------------------------------------------------
# Building device arrays and checking results
# --------------------------------------------------------------------------------------------


def _values(case_id, dtype, seed=0):
    return encode(case_image(case_id), dtype, seed)


def cupy_with_layout(values: np.ndarray, layout: str):
    """A CuPy array equal to `values`, laid out as `layout` says (garbage around views)."""
    h, w = values.shape
    garbage = encode(np.random.default_rng(1).random((2 * h + 2, 3 * w + 2)) < 0.5, values.dtype)
    if layout == "C":
        out = cp.asarray(values)
    elif layout == "F":
        out = cp.asfortranarray(cp.asarray(values))
        assert out.flags.f_contiguous
    elif layout == "strided":
        big = cp.asarray(garbage[: 2 * h, : 3 * w])
        big[::2, ::3] = cp.asarray(values)
        out = big[::2, ::3]
    elif layout == "window":
        big = cp.asarray(garbage[: h + 2, : w + 2])
        big[1:-1, 2:] = cp.asarray(values)
        out = big[1:-1, 2:]
    elif layout == "transposed":
        out = cp.ascontiguousarray(cp.asarray(values).T).T
    elif layout == "reversed":
        out = cp.asarray(np.ascontiguousarray(values[::-1, ::-1]))[::-1, ::-1]
    else:
        raise AssertionError(layout)
    assert out.shape == values.shape
    assert np.array_equal(cp.asnumpy(out) != 0, values != 0)
    return out


def torch_with_layout(values: np.ndarray, layout: str, device="cuda"):
    h, w = values.shape
    base = torch.from_numpy(np.ascontiguousarray(values)).to(device)
    garbage = encode(np.random.default_rng(1).random((2 * h + 2, 3 * w + 2)) < 0.5, values.dtype)
    if layout == "C":
        out = base
    elif layout in ("F", "transposed"):
        out = base.t().contiguous().t()
        assert out.stride() == (1, h)
    elif layout == "strided":
        big = torch.from_numpy(garbage[: 2 * h, : 3 * w].copy()).to(device)
        big[::2, ::3] = base
        out = big[::2, ::3]
    elif layout == "window":
        big = torch.from_numpy(garbage[: h + 2, : w + 2].copy()).to(device)
        big[1:-1, 2:] = base
        out = big[1:-1, 2:]
    else:
        raise AssertionError(layout)
    assert tuple(out.shape) == values.shape
    assert np.array_equal(to_numpy(out) != 0, values != 0)
    return out


def _same_place(result, x, name, context):
    """`result` is an array of `x`'s framework on `x`'s device."""
    if cp is not None and isinstance(x, cp.ndarray):
        assert isinstance(result, cp.ndarray), f"{context}: {name} is {type(result)}, not cupy"
        assert result.device.id == x.device.id, (
            f"{context}: {name} on device {result.device.id}, input on {x.device.id}"
        )
    else:
        assert isinstance(result, torch.Tensor), f"{context}: {name} is {type(result)}"
        assert result.device == x.device, f"{context}: {name} on {result.device}, not {x.device}"


def _label_dtype_of(x):
    if cp is not None and isinstance(x, cp.ndarray):
        return cp.uint32
    return torch.uint32 if hasattr(torch, "uint32") else torch.int32


def check_device_label(x, connectivity, algorithm, oracle, context):
    labels, n = ccl.label(x, connectivity=connectivity, algorithm=algorithm)
    _same_place(labels, x, "labels", context)
    assert labels.dtype == _label_dtype_of(x), f"{context}: labels dtype {labels.dtype}"
    check_label_result((to_numpy(labels, np.uint32), n), oracle, tuple(x.shape), context)


def check_device_stats(x, connectivity, algorithm, oracle, context):
    n, labels, stats, centroids = ccl.connected_components_with_stats(x, connectivity, algorithm=algorithm)
    is_cupy = cp is not None and isinstance(x, cp.ndarray)
    for name, value, dtype in (
        ("labels", labels, "int32"),
        ("stats", stats, "int32"),
        ("centroids", centroids, "float64"),
    ):
        _same_place(value, x, name, context)
        want = getattr(cp, dtype) if is_cupy else getattr(torch, dtype)
        assert value.dtype == want, f"{context}: {name} dtype {value.dtype} != {dtype}"
    host = (n, to_numpy(labels), to_numpy(stats), to_numpy(centroids))
    check_stats_result(host, oracle, tuple(x.shape), context)


def check_device_analyze(x, connectivity, algorithm, oracle, context):
    features = ccl.analyze(x, connectivity, algorithm=algorithm)
    assert isinstance(features, ccl.Features), f"{context}: {type(features)}"
    for name in features._fields:
        _same_place(getattr(features, name), x, name, context)
    if cp is not None and isinstance(x, cp.ndarray):
        for name in ("area", "x_min", "y_min", "x_max", "y_max"):
            assert getattr(features, name).dtype == cp.uint32, f"{context}: {name} dtype"
        assert features.sum_x.dtype == cp.uint64 and features.sum_y.dtype == cp.uint64
        assert features.centroids.dtype == cp.float64
    check_features(features, oracle, context, require_numpy=False)


# --------------------------------------------------------------------------------------------
# Availability
# --------------------------------------------------------------------------------------------


@needs_cupy
def test_cuda_algorithms_available_where_cupy_sees_a_gpu():
    cuda = [info for info in ccl.algorithms() if info.backend == "cuda"]
    assert cuda, "no CUDA algorithm is registered"
    assert any(info.available for info in cuda), "no CUDA algorithm is available: " + "; ".join(
        f"{info.name}: {info.reason}" for info in cuda
    )


# --------------------------------------------------------------------------------------------
# CuPy and torch inputs: dtypes x layouts x connectivities, default algorithm
# --------------------------------------------------------------------------------------------


@needs_cupy
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("layout", CUPY_LAYOUTS)
@pytest.mark.parametrize("dtype", GPU_DTYPES, ids=lambda d: np.dtype(d).name)
def test_cupy_arrays(dtype, layout, connectivity):
    for case_id in GPU_CASES:
        x = cupy_with_layout(_values(case_id, dtype), layout)
        before = cp.asnumpy(x)
        oracle = case_oracle(case_id, connectivity)
        context = f"[cupy {np.dtype(dtype).name} {layout}, c{connectivity}, {case_id}]"
        check_device_label(x, connectivity, None, oracle, context)
        check_device_stats(x, connectivity, None, oracle, context)
        check_device_analyze(x, connectivity, None, oracle, context)
        assert np.array_equal(cp.asnumpy(x), before, equal_nan=True), f"{context}: input changed"


@needs_torch
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
@pytest.mark.parametrize("layout", TORCH_LAYOUTS)
@pytest.mark.parametrize("dtype", GPU_DTYPES, ids=lambda d: np.dtype(d).name)
def test_torch_cuda_tensors(dtype, layout, connectivity):
    for case_id in GPU_CASES:
        x = torch_with_layout(_values(case_id, dtype), layout)
        oracle = case_oracle(case_id, connectivity)
        context = f"[torch {np.dtype(dtype).name} {layout}, c{connectivity}, {case_id}]"
        check_device_label(x, connectivity, None, oracle, context)
        check_device_stats(x, connectivity, None, oracle, context)
        check_device_analyze(x, connectivity, None, oracle, context)


@needs_cupy
def test_cupy_array_on_another_device():
    if cp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU")
    case_id = "random-256x256-d50-g1"
    with cp.cuda.Device(1):
        x = cp.asarray(case_image(case_id).astype(np.uint8))
    with cp.cuda.Device(0):
        for connectivity in CONNECTIVITIES:
            oracle = case_oracle(case_id, connectivity)
            context = f"[cupy on device 1, current device 0, c{connectivity}]"
            check_device_label(x, connectivity, None, oracle, context)
            check_device_stats(x, connectivity, None, oracle, context)
            check_device_analyze(x, connectivity, None, oracle, context)


@needs_torch
def test_torch_tensor_on_another_device():
    if torch.cuda.device_count() < 2:
        pytest.skip("one GPU")
    case_id = "random-129x100-d60-g4"
    x = torch.from_numpy(case_image(case_id).astype(np.uint8)).to("cuda:1")
    with torch.cuda.device(0):
        for connectivity in CONNECTIVITIES:
            oracle = case_oracle(case_id, connectivity)
            context = f"[torch on cuda:1, current device 0, c{connectivity}]"
            check_device_label(x, connectivity, None, oracle, context)
            check_device_stats(x, connectivity, None, oracle, context)


# --------------------------------------------------------------------------------------------
# Streams: the caller's current stream is honoured
# --------------------------------------------------------------------------------------------

STREAM_SIDE = 2048


def _stream_case():
    binary = random_image((STREAM_SIDE, STREAM_SIDE + 5), 55, 1, seed=31)
    return binary, {c: compute_oracle(binary, c) for c in CONNECTIVITIES}


@needs_cupy
def test_cupy_non_blocking_stream():
    binary, oracles = _stream_case()
    source = cp.asarray(binary.astype(np.uint8))
    busy = cp.random.default_rng(0).random((4096, 4096), dtype=cp.float32)
    cp.cuda.Device().synchronize()
    for connectivity in CONNECTIVITIES:
        with cp.cuda.Stream(non_blocking=True) as stream:
            # Work queued on this stream right before the call: the input is written only
            # after a long matrix product, so a call that ignores the stream reads garbage.
            x = cp.empty_like(source)
            x.fill(0)
            for _ in range(4):
                busy = busy @ busy
                busy /= cp.float32(4096)
            cp.copyto(x, source)
            labels, n = ccl.label(x, connectivity)
            n_cv, labels_cv, stats, centroids = ccl.connected_components_with_stats(
                x, connectivity
            )
            features = ccl.analyze(x, connectivity)
            stream.synchronize()
        context = f"[cupy non-blocking stream, c{connectivity}]"
        oracle = oracles[connectivity]
        check_label_result((to_numpy(labels, np.uint32), n), oracle, binary.shape, context)
        check_stats_result(
            (n_cv, to_numpy(labels_cv), to_numpy(stats), to_numpy(centroids)),
            oracle,
            binary.shape,
            context,
        )
        check_features(features, oracle, context, require_numpy=False)


@needs_torch
def test_torch_side_stream():
    binary, oracles = _stream_case()
    source = torch.from_numpy(binary.astype(np.uint8)).cuda()
    busy = torch.rand(4096, 4096, device="cuda")
    torch.cuda.synchronize()
    for connectivity in CONNECTIVITIES:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            x = torch.zeros_like(source)
            for _ in range(4):
                busy = (busy @ busy) / 4096.0
            x.copy_(source)
            labels, n = ccl.label(x, connectivity)
            n_cv, labels_cv, stats, centroids = ccl.connected_components_with_stats(
                x, connectivity
            )
        stream.synchronize()
        context = f"[torch side stream, c{connectivity}]"
        oracle = oracles[connectivity]
        check_label_result((to_numpy(labels, np.uint32), n), oracle, binary.shape, context)
        check_stats_result(
            (n_cv, to_numpy(labels_cv), to_numpy(stats), to_numpy(centroids)),
            oracle,
            binary.shape,
            context,
        )


# --------------------------------------------------------------------------------------------
# Every available CUDA algorithm by name
# --------------------------------------------------------------------------------------------

ALGORITHM_CASES = ("random-256x256-d50-g1", "random-129x100-d60-g4", "spiral-37x53", "real-text")


def _cuda_params(task):
    params = [
        pytest.param(name, connectivity, id=f"{name}-c{connectivity}")
        for connectivity in CONNECTIVITIES
        for name in algorithm_names(task, connectivity, backend="cuda")
    ]
    if not params:
        params.append(
            pytest.param(None, None, marks=pytest.mark.skip(reason="no CUDA algorithm available"))
        )
    return params


@needs_cupy
@pytest.mark.parametrize("algorithm, connectivity", _cuda_params("label"))
def test_cuda_algorithm_label_and_stats_on_cupy(algorithm, connectivity):
    analyzes = "analyze" in algorithm_info(algorithm).tasks
    for case_id in ALGORITHM_CASES:
        x = cp.asarray(case_image(case_id).astype(np.uint8))
        oracle = case_oracle(case_id, connectivity)
        context = f"[{algorithm}, cupy, c{connectivity}, {case_id}]"
        check_device_label(x, connectivity, algorithm, oracle, context)
        if analyzes:
            check_device_stats(x, connectivity, algorithm, oracle, context)
        else:
            try:
                check_device_stats(x, connectivity, algorithm, oracle, context)
            except ValueError:
                pass  # a label-only variant may refuse the statistics


@needs_cupy
@pytest.mark.parametrize("algorithm, connectivity", _cuda_params("analyze"))
def test_cuda_algorithm_analyze_on_cupy(algorithm, connectivity):
    for case_id in ALGORITHM_CASES:
        x = cp.asarray(case_image(case_id).astype(np.uint8))
        oracle = case_oracle(case_id, connectivity)
        check_device_analyze(x, connectivity, algorithm, oracle, f"[{algorithm}, {case_id}]")


@needs_torch
@pytest.mark.parametrize("algorithm, connectivity", _cuda_params("label"))
def test_cuda_algorithm_label_on_torch(algorithm, connectivity):
    case_id = "random-256x256-d50-g1"
    x = torch.from_numpy(case_image(case_id).astype(np.float32)).cuda()
    oracle = case_oracle(case_id, connectivity)
    check_device_label(x, connectivity, algorithm, oracle, f"[{algorithm}, torch]")


@pytest.mark.parametrize("algorithm, connectivity", _cuda_params("label"))
def test_cuda_algorithm_on_host_numpy_returns_numpy(algorithm, connectivity):
    analyzes = "analyze" in algorithm_info(algorithm).tasks
    for case_id in ("random-256x256-d50-g1", "spiral-37x53"):
        image = case_image(case_id).astype(np.uint8)
        oracle = case_oracle(case_id, connectivity)
        context = f"[{algorithm}, host numpy, c{connectivity}, {case_id}]"
        check_label_result(
            ccl.label(image, connectivity, algorithm=algorithm), oracle, image.shape, context
        )
        if analyzes:
            check_stats_result(
                ccl.connected_components_with_stats(image, connectivity, algorithm=algorithm),
                oracle,
                image.shape,
                context,
            )
            check_features(ccl.analyze(image, connectivity, algorithm=algorithm), oracle, context)


@needs_cupy
@pytest.mark.parametrize("function_name", ["label", "connected_components_with_stats", "analyze"])
def test_cupy_array_with_cpu_algorithm_is_value_error(function_name):
    x = cp.asarray(np.eye(5, dtype=np.uint8))
    with pytest.raises(ValueError):
        getattr(ccl, function_name)(x, 8, algorithm="cpu-uf")


@needs_torch
def test_torch_cuda_tensor_with_cpu_algorithm_is_value_error():
    x = torch.eye(5, device="cuda")
    with pytest.raises(ValueError):
        ccl.label(x, 8, algorithm="cpu-rle")


# --------------------------------------------------------------------------------------------
# Threads, each on its own CuPy stream
# --------------------------------------------------------------------------------------------


@needs_cupy
def test_eight_threads_on_their_own_cupy_streams():
    threads = 8
    rounds = 3
    inputs = []
    for i in range(threads):
        binary = random_image((1024, 1024 + 7 * i), (40, 50, 55, 60, 45, 65, 35, 70)[i],
                              (1, 1, 4, 1, 16, 1, 4, 1)[i], seed=500 + i)
        connectivity = 4 if i % 2 else 8
        inputs.append((binary, connectivity, compute_oracle(binary, connectivity)))
    barrier = threading.Barrier(threads)
    device = cp.cuda.Device().id

    def worker(index):
        binary, connectivity, oracle = inputs[index]
        problems = []
        with cp.cuda.Device(device), cp.cuda.Stream(non_blocking=True) as stream:
            x = cp.asarray(binary.astype(np.uint8))
            stream.synchronize()
            barrier.wait(timeout=60)
            for round_ in range(rounds):
                labels, n = ccl.label(x, connectivity)
                n_cv, labels_cv, stats, centroids = ccl.connected_components_with_stats(
                    x, connectivity
                )
                stream.synchronize()
                where = f"thread {index} round {round_} c{connectivity}"
                if n != oracle.n or not np.array_equal(cp.asnumpy(labels), oracle.labels):
                    problems.append(f"{where}: label differs (n {n} vs {oracle.n})")
                if n_cv != oracle.cv_n or not np.array_equal(cp.asnumpy(labels_cv), oracle.labels):
                    problems.append(f"{where}: stats labels differ")
                if not np.array_equal(cp.asnumpy(stats), oracle.cv_stats):
                    problems.append(f"{where}: stats differ")
                if not np.array_equal(cp.asnumpy(centroids), oracle.cv_centroids):
                    problems.append(f"{where}: centroids differ")
        return problems

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(worker, range(threads), timeout=600))
    problems = [p for r in results for p in r]
    assert not problems, "\n".join(problems)


@needs_cupy
@pytest.mark.parametrize("algorithm", [None] + [a.name for a in ccl.algorithms()
                                                if a.backend == "cuda" and a.available
                                                and "label" in a.tasks][:3])
def test_opencv_s_rows_and_ltypes_on_cupy(algorithm):
    """No background: OpenCV 5's row 0 ([-1, INT_MAX, 0, 0, 0], NaN) from the device kernel;
    CV_16U labels; an empty array's results, all on the device."""
    full = cp.ones((37, 71), cp.uint8)
    info = {a.name: a for a in ccl.algorithms()}.get(algorithm)
    connectivities = info.connectivities if info else CONNECTIVITIES
    for connectivity in [c for c in connectivities if c in CONNECTIVITIES]:
        n, labels, stats, centroids = ccl.connected_components_with_stats(
            full, connectivity, algorithm=algorithm
        )
        assert n == 2 and isinstance(stats, cp.ndarray)
        assert stats.get().tolist() == [[-1, 2**31 - 1, 0, 0, 0], [0, 0, 71, 37, 37 * 71]]
        assert cp.isnan(centroids[0]).all().item()
        # The diagonal's 9 pixels: 9 components under 4, 1 under 8.
        n, labels, _, _ = ccl.connected_components_with_stats(
            cp.eye(9, dtype=cp.uint8), connectivity, ccl.CV_16U, algorithm=algorithm
        )
        assert n == (10 if connectivity == 4 else 2) and labels.dtype == cp.uint16
        assert int(labels.max()) == n - 1
    for shape in [(0, 5), (5, 0)]:
        empty = cp.zeros(shape, cp.uint8)
        labels, n = ccl.label(empty, algorithm=algorithm)
        assert n == 0 and labels.shape == shape and isinstance(labels, cp.ndarray)
        n, labels, stats, centroids = ccl.connected_components_with_stats(empty)
        assert n == 1 and stats.get().tolist() == [[-1, 2**31 - 1, 0, 0, 0]]
        assert isinstance(centroids, cp.ndarray) and cp.isnan(centroids).all().item()
        assert len(ccl.analyze(empty).area) == 0


@needs_torch
def test_opencv_s_ltypes_and_empty_tensors_on_torch():
    n, labels, stats, _ = ccl.connected_components_with_stats(
        torch.ones((5, 6), device="cuda"), 8, ccl.CV_16U
    )
    assert n == 2 and labels.is_cuda and labels.dtype == getattr(torch, "uint16", torch.int32)
    assert stats.cpu().tolist() == [[-1, 2**31 - 1, 0, 0, 0], [0, 0, 6, 5, 30]]
    labels, n = ccl.label(torch.zeros((0, 4), device="cuda"))
    assert n == 0 and labels.is_cuda and tuple(labels.shape) == (0, 4)


# --------------------------------------------------------------------------------------------
# Volumes on the device
# --------------------------------------------------------------------------------------------

VOLUME_STRUCTURE = {6: 1, 18: 2, 26: 3}


def _volume_params():
    params = [
        pytest.param(name, c, id=f"{name}-c{c}")
        for c in VOLUME_STRUCTURE
        for name in algorithm_names("label", c, backend="cuda")
    ]
    if not params:
        params.append(
            pytest.param(None, None, marks=pytest.mark.skip(reason="no CUDA volume algorithm"))
        )
    return params


def _random_volumes():
    rng = np.random.default_rng(7)
    for shape, density in [((9, 17, 70), 0.31), ((33, 5, 64), 0.14), ((4, 40, 40), 0.10),
                           ((1, 1, 300), 0.6), ((20, 1, 1), 0.6), ((12, 13, 14), 0.9)]:
        yield shape, density, (rng.random(shape) < density).astype(np.uint8)


def _scipy_volume(volume: np.ndarray, connectivity: int):
    from scipy import ndimage

    structure = ndimage.generate_binary_structure(3, VOLUME_STRUCTURE[connectivity])
    return ndimage.label(volume, structure=structure)


@needs_cupy
@pytest.mark.parametrize("algorithm, connectivity", _volume_params())
def test_cuda_algorithm_labels_cupy_volumes_as_scipy(algorithm, connectivity):
    for shape, density, volume in _random_volumes():
        expected, n = _scipy_volume(volume, connectivity)
        context = f"[{algorithm}, c{connectivity}, {shape}, d={density}]"
        for layout, x in [
            ("C", cp.asarray(volume)),
            ("transposed", cp.ascontiguousarray(cp.asarray(volume).transpose(2, 1, 0)).transpose(2, 1, 0)),
            ("window", cp.pad(cp.asarray(volume), 1, constant_values=1)[1:-1, 1:-1, 1:-1]),
            ("float32", cp.asarray(volume.astype(np.float32))),
        ]:
            labels, count = ccl.label(x, connectivity, algorithm=algorithm)
            assert isinstance(labels, cp.ndarray) and labels.dtype == cp.uint32, context
            assert count == n, f"{context} {layout}: {count} components, scipy {n}"
            np.testing.assert_array_equal(cp.asnumpy(labels), expected, err_msg=f"{context} {layout}")
        # The features are written on the device, and a clean-up keeps their rows there.
        for options in ({}, {"min_size": 3}, {"largest": 5}):
            features = ccl.analyze(cp.asarray(volume), connectivity, algorithm=algorithm, **options)
            host = ccl.analyze(volume, connectivity, algorithm="cpu-uf", **options)
            assert isinstance(features.area, cp.ndarray), f"{context} {options}"
            for field in ("area", "x_min", "y_min", "z_min", "x_max", "y_max", "z_max",
                          "sum_x", "sum_y", "sum_z"):
                np.testing.assert_array_equal(
                    cp.asnumpy(getattr(features, field)), getattr(host, field),
                    err_msg=f"{context} {options} {field}",
                )
            np.testing.assert_allclose(cp.asnumpy(features.centroids), host.centroids,
                                       err_msg=f"{context} {options} centroids")


@needs_torch
@pytest.mark.parametrize("algorithm, connectivity", _volume_params())
def test_cuda_algorithm_labels_torch_volumes_as_scipy(algorithm, connectivity):
    for shape, density, volume in _random_volumes():
        expected, n = _scipy_volume(volume, connectivity)
        for x in (torch.from_numpy(volume).cuda(), torch.from_numpy(volume).cuda().permute(0, 2, 1).contiguous().permute(0, 2, 1)):
            labels, count = ccl.label(x, connectivity, algorithm=algorithm)
            assert labels.is_cuda and count == n
            np.testing.assert_array_equal(labels.cpu().numpy().astype(np.int64), expected)
            features = ccl.analyze(x, connectivity, algorithm=algorithm)
            assert features.area.is_cuda
            areas = np.bincount(expected.ravel(), minlength=n + 1)[1:]
            np.testing.assert_array_equal(features.area.cpu().numpy().astype(np.int64), areas)


@needs_cupy
def test_cupy_volume_errors_and_empty_volumes():
    volume = cp.zeros((3, 4, 5), cp.uint8)
    with pytest.raises(ValueError):
        ccl.label(volume, 8)
    with pytest.raises(ValueError):
        ccl.label(volume, 26, algorithm="cpu-rle")
    for shape in [(0, 4, 5), (3, 0, 5), (3, 4, 0)]:
        labels, count = ccl.label(cp.zeros(shape, cp.uint8), 6)
        assert count == 0 and labels.shape == shape and isinstance(labels, cp.ndarray)
