"""`ccl.label(..., batch=True)` of CuPy batches beside CV-CUDA's batched ``cvcuda.label``, the peer
the batch is measured against, where CV-CUDA imports and CuPy sees a GPU (skipped elsewhere,
e.g. on CI; the GPU machine's CV-CUDA is ``../shared/tools/cvcuda-sm90``'s pack).

CV-CUDA labels in 4-connectivity only (in 2-D), and its ``LABEL.FAST`` numbers components by
no fixed order, so the two are compared as partitions of each image's foreground, with the
per-image component counts, on masks of every density and granularity the batch table uses and
on batches of one image, of single rows and of single columns.
"""

from __future__ import annotations

import numpy as np
import pytest

import ccl
from conftest import assert_same_partition, gpu_module, random_image, to_numpy

cupy = gpu_module("cupy")
cvcuda = pytest.importorskip("cvcuda") if cupy is not None else None

pytestmark = pytest.mark.skipif(cupy is None, reason="CuPy sees no GPU")

SHAPES = {
    "32x96x80": (32, 96, 80),
    "1x200x300": (1, 200, 300),
    "7x1x513": (7, 1, 513),
    "5x257x1": (5, 257, 1),
}


def _cvcuda_label(batch):
    """CV-CUDA's labels (int64, 0 for background, each component a distinct positive value)
    and per-image counts of a (N, H, W) uint8 CuPy batch, as the batch table calls it."""
    background = cvcuda.as_tensor(cupy.zeros(batch.shape[0], dtype=cupy.uint8), "N")
    stream = cvcuda.as_stream(cupy.cuda.get_current_stream())
    labels, counts, _ = cvcuda.label(
        cvcuda.as_tensor(batch, "NHW"), connectivity=cvcuda.CONNECTIVITY_4_2D,
        bg_label=background, stream=stream, assign_labels=cvcuda.LABEL.FAST, count=True)
    labels = cupy.asnumpy(cupy.asarray(labels.cuda())).astype(np.int64)
    counts = cupy.asnumpy(cupy.asarray(counts.cuda())).astype(np.int64).ravel()
    # FAST may give a component the label 0 that background also has: shift the foreground's.
    foreground = cupy.asnumpy(batch) != 0
    return np.where(foreground, labels + 1, 0), counts


@pytest.mark.parametrize("granularity", (1, 4, 16))
@pytest.mark.parametrize("density", (10, 30, 60, 75, 90))
@pytest.mark.parametrize("shape_id", sorted(SHAPES))
def test_batch_partitions_and_counts_equal_cvcuda(shape_id, density, granularity):
    n, height, width = SHAPES[shape_id]
    host = np.stack([
        random_image((height, width), density, granularity, seed=1000 * density + i)
        for i in range(n)
    ]).astype(np.uint8)
    batch = cupy.asarray(host)
    labels, counts = ccl.label(batch, 4, batch=True)
    labels, counts = to_numpy(labels, np.int64), to_numpy(counts, np.int64)
    expected, expected_counts = _cvcuda_label(batch)
    context = f"{shape_id} d={density} g={granularity}"
    assert list(counts) == list(expected_counts), f"{context}: counts differ from CV-CUDA's"
    for i in range(n):
        assert_same_partition(labels[i], expected[i], f"{context} image {i}")
