"""`ccl.label(..., batch=True)` and `ccl.analyze(..., batch=True)`: every image of a batch
labeled apart, numbered 1..n_i in its own raster order, exactly as scipy labels it alone.

On the host (numpy, CPU torch) for every available algorithm that labels images, CUDA ones
included where a GPU runs; on CuPy arrays and CUDA torch tensors where CuPy / torch see a GPU
(the GPU tests skip elsewhere, e.g. on CI). Also the shapes a network gives, ``(N, 1, H, W)``,
the degenerate batches, and the errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import ccl
from conftest import (
    gpu_module,
    CONNECTIVITIES,
    algorithm_names,
    check_features,
    compute_oracle,
    random_image,
    to_numpy,
)


def _batch(count: int, shape, seed: int) -> np.ndarray:
    """`count` images of `shape` at densities around the thresholds, a full and an empty one."""
    images = []
    for i in range(count):
        if i == 1:
            images.append(np.ones(shape, bool))
        elif i == 2:
            images.append(np.zeros(shape, bool))
        else:
            images.append(random_image(shape, (10, 45, 60, 80)[i % 4], 1 + 3 * (i % 2), seed + i))
    return np.stack(images) if images else np.zeros((0,) + tuple(shape), bool)


BATCHES = {
    "6x37x29": (6, (37, 29)),
    "5x64x130": (5, (64, 130)),
    "4x1x45": (4, (1, 45)),
    "3x17x1": (3, (17, 1)),
    "1x23x19": (1, (23, 19)),
}


def _check(batch: np.ndarray, labels, counts, connectivity: int, context: str) -> None:
    labels, counts = to_numpy(labels), to_numpy(counts)
    assert labels.shape == batch.shape, f"{context}: labels of shape {labels.shape}"
    assert counts.shape == (batch.shape[0],), f"{context}: counts of shape {counts.shape}"
    images = batch.reshape((batch.shape[0],) + batch.shape[-2:])
    labels = labels.reshape(images.shape)
    for i, image in enumerate(images):
        oracle = compute_oracle(image, connectivity)
        assert int(counts[i]) == oracle.n, f"{context}: image {i} counted {counts[i]}"
        assert np.array_equal(labels[i], oracle.labels), f"{context}: image {i} labels differ"


def _variants(task: str, backend=None):
    """(algorithm, connectivity) for every available algorithm and image connectivity it has."""
    return [(a, c) for c in CONNECTIVITIES for a in algorithm_names(task, c, backend=backend)]


@pytest.mark.parametrize("batch_id", sorted(BATCHES))
@pytest.mark.parametrize("algorithm, connectivity", _variants("label"))
def test_host_batches_equal_each_image_labeled_alone(batch_id, connectivity, algorithm):
    count, shape = BATCHES[batch_id]
    batch = _batch(count, shape, seed=count)
    labels, counts = ccl.label(batch, connectivity, algorithm=algorithm, batch=True)
    assert isinstance(labels, np.ndarray) and labels.dtype == np.uint32
    assert isinstance(counts, np.ndarray) and counts.dtype == np.uint32
    _check(batch, labels, counts, connectivity, f"{algorithm} {batch_id} c{connectivity}")


@pytest.mark.parametrize("algorithm, connectivity", _variants("analyze"))
def test_host_batch_features_equal_each_image_analyzed_alone(connectivity, algorithm):
    batch = _batch(5, (41, 70), seed=3)
    features = ccl.analyze(batch, connectivity, algorithm=algorithm, batch=True)
    assert isinstance(features, list) and len(features) == len(batch)
    for i, image in enumerate(batch):
        check_features(features[i], compute_oracle(image, connectivity), f"{algorithm} image {i}")


def test_a_networks_shape_and_out():
    batch = _batch(4, (33, 20), seed=9)[:, None]  # (N, 1, H, W)
    labels, counts = ccl.label(batch, batch=True)
    assert labels.shape == batch.shape
    _check(batch, labels, counts, 8, "(N, 1, H, W)")
    out = np.full(batch.shape[:1] + batch.shape[2:], 7, np.uint32)
    labels, counts = ccl.label(batch[:, 0], 4, batch=True, out=out)
    assert labels is out
    _check(batch[:, 0], out, counts, 4, "out=")


def test_batches_without_pixels():
    for shape in [(0, 5, 3), (3, 0, 4), (2, 4, 0)]:
        labels, counts = ccl.label(np.zeros(shape, np.uint8), batch=True)
        assert labels.shape == shape and counts.shape == (shape[0],) and not counts.any()
        features = ccl.analyze(np.zeros(shape, np.uint8), batch=True)
        assert len(features) == shape[0] and all(len(f.area) == 0 for f in features)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: ccl.label(np.zeros((4, 5), np.uint8), batch=True), "n_images, height"),
        (lambda: ccl.label(np.zeros((2, 3, 4, 5), np.uint8), batch=True), "n_images, 1"),
        (lambda: ccl.label(np.zeros((2, 4, 5), np.uint8), 6, batch=True), "4 or 8"),
        (lambda: ccl.label(np.zeros((2, 4, 5), np.uint8), 5, batch=True), "connectivity"),
        (lambda: ccl.analyze(np.zeros((2, 4, 5), np.uint8), 26, batch=True), "4 or 8"),
        (lambda: ccl.label(None, batch=True), "None"),
        (
            lambda: ccl.label(np.zeros((2, 4, 5), np.uint8), batch=True, out=np.zeros((2, 4, 4), np.uint32)),
            "out has shape",
        ),
        (lambda: ccl.label(np.zeros((2, 4, 5), np.complex64), batch=True), "dtype"),
    ],
)
def test_bad_batches_are_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ------------------------------------------------------------------------------ GPU arrays


cp = gpu_module("cupy")
torch = gpu_module("torch")
needs_cupy = pytest.mark.skipif(cp is None, reason="CuPy with a CUDA device is not available")
needs_torch = pytest.mark.skipif(torch is None, reason="torch with a CUDA device is not available")


@needs_cupy
@pytest.mark.parametrize("batch_id", sorted(BATCHES))
@pytest.mark.parametrize("algorithm, connectivity", _variants("label", backend="cuda"))
def test_cupy_batches_stay_on_the_device(batch_id, connectivity, algorithm):
    count, shape = BATCHES[batch_id]
    batch = _batch(count, shape, seed=count + 1)
    labels, counts = ccl.label(cp.asarray(batch), connectivity, algorithm=algorithm, batch=True)
    assert isinstance(labels, cp.ndarray) and isinstance(counts, cp.ndarray)
    assert labels.dtype == cp.uint32 and counts.dtype == cp.uint32
    _check(batch, labels, counts, connectivity, f"cupy {algorithm} {batch_id} c{connectivity}")


@needs_cupy
def test_a_large_cupy_batch_of_network_masks():
    # 64 masks of 256 x 256 with a channel axis, in uint8 and float32.
    batch = np.stack([random_image((256, 256), (45, 60)[i % 2], 1 + (i % 3), i) for i in range(64)])
    for dtype in (cp.uint8, cp.float32):
        masks = cp.asarray(batch[:, None]).astype(dtype)
        labels, counts = ccl.label(masks, 4, batch=True)
        _check(batch[:, None], labels, counts, 4, f"cupy {dtype}")
        features = ccl.analyze(masks, 8, batch=True)
        for i in (0, 17, 63):
            check_features(
                features[i], compute_oracle(batch[i], 8), f"cupy analyze {i}", require_numpy=False
            )


@needs_torch
@pytest.mark.parametrize("connectivity", CONNECTIVITIES)
def test_torch_batches_stay_on_the_device(connectivity):
    batch = _batch(6, (37, 29), seed=5)
    tensor = torch.from_numpy(batch).cuda()[:, None]
    labels, counts = ccl.label(tensor, connectivity, batch=True)
    assert labels.is_cuda and counts.is_cuda and labels.shape == tensor.shape
    _check(batch[:, None], labels, counts, connectivity, f"torch c{connectivity}")
    features = ccl.analyze(tensor, connectivity, batch=True)
    for i, image in enumerate(batch):
        check_features(
            features[i], compute_oracle(image, connectivity), f"torch {i}", require_numpy=False
        )
