"""`ccl.dask` labels dask arrays chunk by chunk exactly as `ccl.label` labels them in core.

What this proves, for 2-D and 3-D dask arrays of numpy (and, with a GPU, CuPy) chunks:

* `ccl.dask.label` gives the in-core partition (`ccl.label` of the computed array) with the
  same count, as labels 1..n without gaps, uint32, lazily (a dask array of the input's chunks
  and chunk type), for 4 / 8 and 6 / 18 / 26 connectivity, random arrays of densities 0 to
  100 %, and chunkings: one chunk, regular, irregular, chunks of one element along an axis or
  along every axis, and chunks of length 0;
* the same partition as dask-image's `ndmeasure.label` with the matching structure;
* voxels that touch only across an edge or a corner of the chunk grid are joined (and are not
  where the connectivity excludes it); components that cross many chunks (a spiral, a snake,
  the full array) are one; a checkerboard is one component in 8 / 26 and one per pixel in
  4 / 6;
* `ccl.dask.statistics` equals `ccl.statistics(..., no_slice_conversion=True)` of the in-core
  array row for row, after matching the rows through the labels (centroids bit for bit);
* under `dask.distributed` with two worker processes, the same labels;
* the merge of the face graph (which labels merge, each component's number) equals scipy's
  connected components, and refuses pairs and face labels it cannot join;
* the errors: a numpy array, 1-D and 4-D arrays, connectivities of the other rank or none,
  chunks too large for 32-bit local labels, an input that changes between the two passes.
"""

from __future__ import annotations

import doctest
import itertools
import subprocess
import sys

import numpy as np
import pytest

import ccl
from conftest import assert_same_partition, gpu_module

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
import ccl.dask as ccl_dask  # noqa: E402 (after importorskip: it imports dask)

ndimage = pytest.importorskip("scipy.ndimage")


# ------------------------------------------------------------------------------ helpers


def canonical(labels: np.ndarray) -> np.ndarray:
    """``labels`` renumbered 1.. in raster order of each label's first element (0 stays 0):
    two labelings are the same partition exactly when their canonical forms are equal."""
    flat = np.asarray(labels).astype(np.int64).ravel()
    values, first = np.unique(flat, return_index=True)
    keep = values != 0
    values, first = values[keep], first[keep]
    rank = np.empty(len(values), np.int64)
    rank[np.argsort(first)] = np.arange(1, len(values) + 1)
    out = np.zeros_like(flat)
    fg = flat != 0
    out[fg] = rank[np.searchsorted(values, flat[fg])]
    return out.reshape(np.shape(labels))


def check_labels(labels, n, expected: np.ndarray, expected_n: int, context: str) -> np.ndarray:
    """``(labels, n)`` of ccl.dask.label are the expected partition, numbered 1..n without
    gaps; returns the computed labels."""
    assert isinstance(labels, da.Array), f"{context}: labels is {type(labels)}"
    assert type(n) is int, f"{context}: n is {type(n).__name__}"
    assert n == expected_n, f"{context}: n = {n}, expected {expected_n}"
    computed = labels.compute()
    assert isinstance(computed, np.ndarray)
    assert computed.dtype == np.uint32, f"{context}: dtype {computed.dtype}"
    assert computed.shape == expected.shape
    assert_same_partition(computed, expected, context)
    assert np.array_equal(canonical(computed), canonical(expected)), context
    present = np.unique(computed)
    assert np.array_equal(present[present != 0], np.arange(1, n + 1)), (
        f"{context}: labels are not 1..{n} without gaps: {present[:10]}..."
    )
    return computed


def random_binary(shape, density: float, seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).random(shape) < density).astype(np.uint8)


def in_core(array: np.ndarray, connectivity: int):
    return ccl.label(array, connectivity)


# Chunkings of a 2-D (37, 45) and a 3-D (13, 17, 11) array.
CHUNKS_2D = {
    "one": (37, 45),
    "regular": (8, 8),
    "irregular": ((3, 7, 5, 22), (4, 4, 9, 28)),
    "rows-of-one": (1, 45),
    "columns-of-one": (37, 1),
    "ragged-small": (5, 3),
}
CHUNKS_3D = {
    "one": (13, 17, 11),
    "regular": (4, 4, 4),
    "irregular": ((3, 7, 3), (4, 4, 9), (5, 6)),
    "slices-of-one": (1, 17, 11),
    "lines-of-one": (13, 1, 1),
    "ragged-small": (2, 3, 5),
}
DENSITIES = (0.0, 0.3, 0.6, 1.0)


# ------------------------------------------------------------------------------ labels


@pytest.mark.parametrize("chunking", sorted(CHUNKS_2D))
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("connectivity", (4, 8))
def test_label_2d_equals_in_core(connectivity, density, chunking):
    array = random_binary((37, 45), density, seed=int(density * 10) + connectivity)
    expected, expected_n = in_core(array, connectivity)
    image = da.from_array(array, chunks=CHUNKS_2D[chunking])
    labels, n = ccl_dask.label(image, connectivity)
    assert labels.chunks == image.chunks
    check_labels(labels, n, expected, expected_n, f"2-D c={connectivity} d={density} {chunking}")


@pytest.mark.parametrize("chunking", sorted(CHUNKS_3D))
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("connectivity", (6, 18, 26))
def test_label_3d_equals_in_core(connectivity, density, chunking):
    array = random_binary((13, 17, 11), density, seed=int(density * 10) + connectivity)
    expected, expected_n = in_core(array, connectivity)
    image = da.from_array(array, chunks=CHUNKS_3D[chunking])
    labels, n = ccl_dask.label(image, connectivity)
    assert labels.chunks == image.chunks
    check_labels(labels, n, expected, expected_n, f"3-D c={connectivity} d={density} {chunking}")


@pytest.mark.parametrize(
    "shape, connectivity",
    [((6, 7), 4), ((6, 7), 8), ((4, 5, 3), 6), ((4, 5, 3), 18), ((4, 5, 3), 26)],
)
@pytest.mark.parametrize("density", (0.3, 0.5))
def test_label_one_element_chunks(shape, connectivity, density):
    """Every element its own chunk: every join is across the chunk grid."""
    array = random_binary(shape, density, seed=len(shape) + connectivity)
    expected, expected_n = in_core(array, connectivity)
    image = da.from_array(array, chunks=1)
    labels, n = ccl_dask.label(image, connectivity)
    check_labels(labels, n, expected, expected_n, f"one-element chunks c={connectivity}")


@pytest.mark.parametrize("connectivity", (4, 8, 6, 18, 26))
def test_label_default_and_dense_medium(connectivity):
    """A larger array (64 x 64, 24^3) at densities near the percolation thresholds."""
    ndim = 2 if connectivity in (4, 8) else 3
    shape, chunks = ((64, 64), (16, 24)) if ndim == 2 else ((24, 24, 24), (8, 12, 7))
    density = {4: 0.59, 8: 0.41, 6: 0.31, 18: 0.14, 26: 0.1}[connectivity]
    array = random_binary(shape, density, seed=connectivity)
    expected, expected_n = in_core(array, connectivity)
    labels, n = ccl_dask.label(da.from_array(array, chunks=chunks), connectivity)
    check_labels(labels, n, expected, expected_n, f"percolation c={connectivity}")


def test_default_connectivity_is_the_fullest():
    array = np.eye(6, dtype=np.uint8)
    _, n = ccl_dask.label(da.from_array(array, chunks=2))
    assert n == 1
    volume = np.zeros((4, 4, 4), np.uint8)
    volume[np.arange(4), np.arange(4), np.arange(4)] = 1
    _, n = ccl_dask.label(da.from_array(volume, chunks=2))
    assert n == 1


@pytest.mark.parametrize("dtype", [bool, np.uint16, np.int32, np.float32, np.float64])
def test_label_dtypes(dtype):
    array = random_binary((20, 30), 0.5, seed=3)
    values = array.astype(dtype) * (
        np.array(-0.5).astype(dtype) if dtype in (np.float32, np.float64) else 1
    )
    if np.dtype(dtype).kind == "f":
        values[array == 0] = -0.0  # negative zero is background
    expected, expected_n = in_core(array, 8)
    labels, n = ccl_dask.label(da.from_array(values, chunks=(7, 9)), 8)
    check_labels(labels, n, expected, expected_n, f"dtype {np.dtype(dtype)}")


def test_label_is_lazy_and_keeps_chunks():
    array = random_binary((30, 40), 0.5, seed=1)
    image = da.from_array(array, chunks=(7, 11))
    labels, _ = ccl_dask.label(image)
    assert isinstance(labels, da.Array)
    assert labels.chunks == image.chunks
    assert labels.dtype == np.uint32
    assert isinstance(labels._meta, np.ndarray)
    # A slice of the labels computes only the chunks it needs, and equals the whole's slice.
    whole = labels.compute()
    assert np.array_equal(labels[10:20, 5:30].compute(), whole[10:20, 5:30])


def test_uint64_labels_beyond_uint32(monkeypatch):
    """Arrays of more than 2^32 - 2 elements get uint64 labels (the threshold lowered here)."""
    monkeypatch.setattr(ccl_dask, "_U32_LABELS", 100)
    array = random_binary((20, 30), 0.5, seed=2)
    expected, expected_n = in_core(array, 4)
    labels, n = ccl_dask.label(da.from_array(array, chunks=(6, 7)), 4)
    assert labels.dtype == np.uint64
    computed = labels.compute()
    assert computed.dtype == np.uint64 and n == expected_n
    assert np.array_equal(canonical(computed), canonical(expected))


def test_chunks_of_length_zero():
    """A filtered dask array may have empty chunks; the chunks on either side touch."""
    array = random_binary((12, 10), 0.6, seed=4)
    image = da.from_array(array, chunks=((5, 0, 7), (4, 0, 6)))
    expected, expected_n = in_core(array, 4)
    labels, n = ccl_dask.label(image, 4)
    assert labels.chunks == image.chunks
    check_labels(labels, n, expected, expected_n, "chunks of length 0")


def test_input_that_changes_between_passes_is_an_error():
    """The labels' chunks label their input again: an input graph that gives other values the
    second time (here ones, then a checkerboard) is named, not labeled wrongly."""
    calls = itertools.count()

    def unstable(block):
        if next(calls) < 4:  # the eager pass: its four chunks
            return np.ones(block.shape, np.uint8)
        return (np.indices(block.shape).sum(axis=0) % 2).astype(np.uint8)

    image = da.zeros((8, 8), dtype=np.uint8, chunks=4)
    image = image.map_blocks(unstable, dtype=np.uint8, meta=np.empty((0, 0), np.uint8))
    labels, n = ccl_dask.label(image, 4)
    assert n == 1
    with pytest.raises(RuntimeError, match="persist"):
        labels.compute()


@pytest.mark.parametrize("shape", [(0, 5), (4, 0), (0, 3, 3)])
def test_empty_arrays(shape):
    image = da.zeros(shape, dtype=np.uint8, chunks=2)
    labels, n = ccl_dask.label(image)
    assert n == 0 and labels.shape == shape and labels.compute().shape == shape
    assert ccl_dask.statistics(image) == {
        "voxel_counts": None,
        "bounding_boxes": None,
        "centroids": None,
    }


# --------------------------------------------------------------- joins across the chunk grid


@pytest.mark.parametrize("connectivity, expected_n", [(4, 8), (8, 1)])
def test_diagonal_through_chunk_corners_2d(connectivity, expected_n):
    """(1, 1) lies in chunk (0, 0), (2, 2) in chunk (1, 1): they touch only across the corner
    of the chunk grid, which no face between two chunks of a row or column covers alone."""
    array = np.eye(8, dtype=np.uint8)
    for chunks in (2, (2, 3), ((1, 2, 5), (2, 1, 5))):
        expected, _ = in_core(array, connectivity)
        labels, n = ccl_dask.label(da.from_array(array, chunks=chunks), connectivity)
        check_labels(labels, n, expected, expected_n, f"eye c={connectivity} chunks={chunks}")
    # The anti-diagonal crosses corners the other way.
    anti = np.ascontiguousarray(array[:, ::-1])
    expected, _ = in_core(anti, connectivity)
    labels, n = ccl_dask.label(da.from_array(anti, chunks=2), connectivity)
    check_labels(labels, n, expected, expected_n, f"anti-diagonal c={connectivity}")


@pytest.mark.parametrize(
    "line, connectivity, expected_n",
    [
        ("corner", 6, 6), ("corner", 18, 6), ("corner", 26, 1),
        ("edge", 6, 6), ("edge", 18, 1), ("edge", 26, 1),
    ],
)  # fmt: skip
def test_diagonal_through_chunk_edges_and_corners_3d(line, connectivity, expected_n):
    """A line of voxels (i, i, i) crosses chunk corners (26-connected only); (i, i, 2) crosses
    chunk edges (18- and 26-connected), in every orientation."""
    i = np.arange(6)
    for flip in [(), (0,), (1, 2)]:
        volume = np.zeros((6, 6, 6), np.uint8)
        if line == "corner":
            volume[i, i, i] = 1
        else:
            volume[i, i, 2] = 1
        volume = np.ascontiguousarray(np.flip(volume, flip) if flip else volume)
        for order in [(0, 1, 2), (2, 0, 1)] if flip != () else [(0, 1, 2), (1, 2, 0)]:
            v = np.ascontiguousarray(volume.transpose(order))
            expected, _ = in_core(v, connectivity)
            labels, n = ccl_dask.label(da.from_array(v, chunks=2), connectivity)
            check_labels(
                labels, n, expected, expected_n, f"{line} c={connectivity} {flip} {order}"
            )


def spiral(size: int) -> np.ndarray:
    """A square spiral path, one pixel wide with one-pixel gaps between its turns: one
    4-connected component that winds through every chunk many times."""
    a = np.zeros((size, size), np.uint8)
    y = x = turn = 0
    steps = [(0, 1), (1, 0), (0, -1), (-1, 0)]
    a[0, 0] = 1
    while True:
        for _ in range(2):  # straight on, else turn right once
            dy, dx = steps[turn]
            ny, nx, fy, fx = y + dy, x + dx, y + 2 * dy, x + 2 * dx
            inside = 0 <= ny < size and 0 <= nx < size
            ahead = 0 <= fy < size and 0 <= fx < size and a[fy, fx]
            if inside and not a[ny, nx] and not ahead:
                y, x = ny, nx
                a[y, x] = 1
                break
            turn = (turn + 1) % 4
        else:
            return a


def snake_3d(shape) -> np.ndarray:
    """A path that fills every other row of every other slice, linked at alternating ends."""
    d, h, _ = shape
    v = np.zeros(shape, np.uint8)
    for z in range(0, d, 2):
        for y in range(0, h, 2):
            v[z, y, :] = 1
            if y + 2 < h:
                v[z, y + 1, -1 if (y // 2) % 2 == 0 else 0] = 1
        if z + 2 < d:
            last_y = (h - 1) // 2 * 2
            v[z + 1, last_y, -1 if (last_y // 2) % 2 == 0 else 0] = 1
    return v


@pytest.mark.parametrize("connectivity", (4, 8))
@pytest.mark.parametrize("chunks", [3, (4, 7), 16])
def test_spiral_crosses_many_chunks(connectivity, chunks):
    array = spiral(40)
    expected, expected_n = in_core(array, connectivity)
    assert expected_n == 1 and array.sum() > 40 * 40 // 2
    labels, n = ccl_dask.label(da.from_array(array, chunks=chunks), connectivity)
    check_labels(labels, n, expected, expected_n, f"spiral c={connectivity} chunks={chunks}")


@pytest.mark.parametrize("connectivity", (6, 18, 26))
def test_snake_crosses_many_chunks(connectivity):
    volume = snake_3d((9, 11, 13))
    expected, expected_n = in_core(volume, connectivity)
    assert expected_n == 1
    labels, n = ccl_dask.label(da.from_array(volume, chunks=(2, 3, 4)), connectivity)
    check_labels(labels, n, expected, expected_n, f"snake c={connectivity}")


@pytest.mark.parametrize("shape, chunks", [((33, 21), (5, 4)), ((9, 10, 11), (2, 3, 4))])
def test_full_array_is_one_component(shape, chunks):
    array = np.ones(shape, np.uint8)
    for connectivity in (4, 8) if len(shape) == 2 else (6, 18, 26):
        labels, n = ccl_dask.label(da.from_array(array, chunks=chunks), connectivity)
        assert n == 1
        assert (labels.compute() == 1).all()


@pytest.mark.parametrize(
    "shape, connectivity, one", [((20, 22), 4, False), ((20, 22), 8, True),
                                 ((8, 9, 10), 6, False), ((8, 9, 10), 18, True),
                                 ((8, 9, 10), 26, True)]
)  # fmt: skip
def test_checkerboard(shape, connectivity, one):
    board = (np.indices(shape).sum(axis=0) % 2 == 0).astype(np.uint8)
    expected, expected_n = in_core(board, connectivity)
    assert expected_n == (1 if one else board.sum())
    labels, n = ccl_dask.label(da.from_array(board, chunks=3), connectivity)
    check_labels(labels, n, expected, expected_n, f"checkerboard c={connectivity}")


# ------------------------------------------------------------------------------ dask-image


@pytest.mark.parametrize(
    "shape, chunks, connectivity",
    [((40, 50), (9, 13), 4), ((40, 50), (9, 13), 8), ((10, 11, 12), (5, 6, 6), 6),
     ((10, 11, 12), (5, 6, 6), 18), ((10, 11, 12), (5, 6, 6), 26)],
)  # fmt: skip
def test_equals_dask_image(shape, chunks, connectivity):
    density = 0.4
    ndmeasure = pytest.importorskip("dask_image.ndmeasure")
    ndim = len(shape)
    rank = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}[connectivity]
    structure = ndimage.generate_binary_structure(ndim, rank)
    array = random_binary(shape, density, seed=ndim + connectivity)
    image = da.from_array(array, chunks=chunks)
    theirs, their_n = ndmeasure.label(image, structure)
    theirs, their_n = dask.compute(theirs, their_n)
    labels, n = ccl_dask.label(image, connectivity)
    check_labels(labels, n, np.asarray(theirs), int(their_n), f"dask-image c={connectivity}")


# ------------------------------------------------------------------------------ statistics


def check_statistics(image, connectivity: int, context: str) -> None:
    """ccl.dask.statistics equals ccl.statistics of the in-core array, rows matched through
    the labels: row i of ours is label i of ccl.dask.label, row j of theirs label j of
    ccl.label."""
    array = np.asarray(image.compute())
    ours = ccl_dask.statistics(image, connectivity)
    theirs = ccl.statistics(array, connectivity, no_slice_conversion=True)
    labels, n = ccl_dask.label(image, connectivity)
    labels = labels.compute()
    expected, _ = ccl.label(array, connectivity)
    # Our label -> theirs (a bijection, the partition being equal), background to background.
    match = np.zeros(n + 1, np.int64)
    match[labels.ravel()] = expected.ravel()
    assert sorted(ours) == ["bounding_boxes", "centroids", "voxel_counts"]
    counts, boxes, centroids = ours["voxel_counts"], ours["bounding_boxes"], ours["centroids"]
    assert counts.dtype == np.uint64 and counts.shape == (n + 1,), context
    assert boxes.dtype == np.uint32 and boxes.shape == (n + 1, 2 * array.ndim), context
    assert centroids.dtype == np.float64 and centroids.shape == (n + 1, array.ndim), context
    assert np.array_equal(counts, theirs["voxel_counts"][match]), context
    assert np.array_equal(boxes[1:], theirs["bounding_boxes"][match[1:]].astype(np.uint32)), (
        context
    )
    if theirs["voxel_counts"][0]:
        assert np.array_equal(boxes[0], theirs["bounding_boxes"][0]), context
    else:  # cc3d's sentinel, in our uint32
        assert boxes[0].tolist() == [2**32 - 1, 0] * array.ndim, context
    # Bit for bit: both divide the exact coordinate sum by the count.
    assert np.array_equal(centroids, theirs["centroids"][match], equal_nan=True), context


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize(
    "shape, chunks, connectivity",
    [((37, 45), (8, 8), 4), ((37, 45), ((3, 7, 5, 22), (4, 4, 9, 28)), 8), ((9, 11), 1, 8),
     ((13, 17, 11), (4, 4, 4), 6), ((13, 17, 11), ((3, 7, 3), (4, 4, 9), (5, 6)), 18),
     ((13, 17, 11), (2, 3, 5), 26)],
)  # fmt: skip
def test_statistics_equal_in_core(shape, chunks, connectivity, density):
    array = random_binary(shape, density, seed=len(shape) * 7 + connectivity)
    check_statistics(da.from_array(array, chunks=chunks), connectivity, f"{shape} {chunks}")


def test_statistics_patterns():
    check_statistics(da.from_array(spiral(40), chunks=7), 4, "spiral")
    check_statistics(da.from_array(snake_3d((9, 11, 13)), chunks=(2, 3, 4)), 26, "snake")
    board = (np.indices((8, 9, 10)).sum(axis=0) % 2).astype(np.uint8)
    check_statistics(da.from_array(board, chunks=3), 6, "checkerboard")


# ------------------------------------------------------------------------------ union-find


def _join_nodes(u, v, faces, chunks):
    """``ccl.dask``'s join (``_joined``) of the nodes ``u`` ~ ``v`` over the ascending global
    face labels ``faces`` (node ``i`` label ``faces[i]``), the nodes cut into ``chunks``
    chunks of consecutive nodes: ``(paired, finals, merged)``."""
    size = len(faces)
    bounds = np.linspace(0, size, chunks + 1).astype(np.int64)
    # Each chunk's labels start after the last face label of the chunks before it.
    offsets = np.array([0] + [faces[b - 1] if b > 0 else 0 for b in bounds[1:-1]], np.int64)
    counts = np.diff(np.append(offsets, faces[-1] if size else 0))
    face_labels = [(faces[a:b] - o).astype(np.uint32) for a, b, o in zip(bounds, bounds[1:], offsets)]
    chunk_of = np.searchsorted(bounds, np.arange(size), side="right") - 1

    def keys(nodes):
        nodes = np.asarray(nodes, np.int64)
        chunk = chunk_of[nodes]
        return (chunk.astype(np.uint64) << np.uint64(32)) | (nodes - bounds[chunk] + 1).astype(np.uint64)

    plan = ccl_dask._joined(counts, face_labels, keys(u), keys(v), None)
    return plan.faces, plan.finals, plan.merged


def test_the_merge_equals_scipy():
    csgraph = pytest.importorskip("scipy.sparse.csgraph")
    sparse = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(0)
    cases = []
    for size, edges in [(1, 0), (10, 5), (200, 150), (1000, 990), (5000, 2000)]:
        cases.append((size, rng.integers(0, size, edges), rng.integers(0, size, edges)))
    # Paths whose node order alternates, so that finding the smallest node takes rounds.
    order = rng.permutation(3000)
    cases.append((3000, order[:-1], order[1:]))
    zigzag = np.concatenate([np.arange(0, 2000, 2), np.arange(1, 2000, 2)[::-1]])
    cases.append((2000, zigzag[:-1], zigzag[1:]))
    for size, u, v in cases:
        # Face labels with gaps between them, as the chunks' face labels have.
        faces = np.cumsum(rng.integers(1, 4, size)).astype(np.int64)
        paired, finals, merged = _join_nodes(u, v, faces, chunks=min(size, 7))
        graph = sparse.coo_matrix((np.ones(len(u)), (u, v)), shape=(size, size))
        _, component = csgraph.connected_components(graph, directed=False)
        # Each node's component is named by its smallest node; the others are merged.
        smallest = np.full(component.max() + 1, size)
        np.minimum.at(smallest, component, np.arange(size))
        root = smallest[component]
        is_merged = root != np.arange(size)
        assert np.array_equal(merged, faces[is_merged])
        # A component's number: its smallest label less the merged labels below that.
        numbers = faces[root] - np.searchsorted(faces[is_merged], faces[root])
        on_edge = np.zeros(size, bool)
        on_edge[u] = True
        on_edge[v] = True
        assert np.array_equal(paired, faces[on_edge])
        assert np.array_equal(finals, numbers[on_edge])


def test_the_merge_refuses_what_it_cannot_join():
    counts, faces = np.array([3, 3]), [np.array([1, 2], np.uint32), np.array([2], np.uint32)]
    key = lambda chunk, rank: np.array([(chunk << 32) | rank], np.uint64)  # noqa: E731
    with pytest.raises(ValueError, match="names no face label"):
        ccl_dask._joined(counts, faces, key(1, 2), key(0, 1), None)
    with pytest.raises(ValueError, match="names no face label"):
        ccl_dask._joined(counts, faces, key(2, 1), key(0, 1), None)
    with pytest.raises(ValueError, match="ascending"):
        ccl_dask._joined(counts, [np.array([2, 1], np.uint32), faces[1]], key(0, 1), key(1, 1), None)


# ------------------------------------------------------------------------------ distributed


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes of one thread each, started once for the module."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster


@pytest.fixture
def two_workers(cluster):
    """A client of the two workers, the default scheduler while a test runs (and no longer:
    the other tests run on the threaded scheduler)."""
    import distributed

    with distributed.Client(cluster) as client:
        yield client


def test_distributed_two_workers(two_workers):
    assert len(two_workers.scheduler_info()["workers"]) == 2
    for shape, chunks, connectivity in [((40, 50), (9, 13), 8), ((12, 13, 14), (5, 4, 6), 26)]:
        array = random_binary(shape, 0.4, seed=5)
        expected, expected_n = in_core(array, connectivity)
        image = da.from_array(array, chunks=chunks)
        labels, n = ccl_dask.label(image, connectivity)
        check_labels(labels, n, expected, expected_n, f"distributed c={connectivity}")
        check_statistics(image, connectivity, "distributed")
    # Both workers ran tasks of ccl.dask (unpickling one imports the module there).
    imported = two_workers.run(_imports_ccl_dask)
    assert len(imported) == 2 and all(imported.values()), imported


def _imports_ccl_dask() -> bool:
    return "ccl.dask" in sys.modules


# ------------------------------------------------------------------------------ CuPy chunks


cp = gpu_module("cupy")
needs_cupy = pytest.mark.skipif(cp is None, reason="CuPy with a CUDA device is not available")


@needs_cupy
@pytest.mark.parametrize(
    "shape, chunks, connectivity",
    [((40, 50), (9, 13), 4), ((40, 50), (9, 13), 8), ((14, 15, 16), (5, 4, 6), 6),
     ((14, 15, 16), (5, 4, 6), 18), ((14, 15, 16), (5, 4, 6), 26)],
)  # fmt: skip
@pytest.mark.parametrize("density", (0.0, 0.4, 1.0))
def test_cupy_chunks_equal_numpy_chunks(shape, chunks, connectivity, density):
    array = random_binary(shape, density, seed=11)
    host = da.from_array(array, chunks=chunks)
    device = host.map_blocks(cp.asarray)
    labels, n = ccl_dask.label(device, connectivity)
    host_labels, host_n = ccl_dask.label(host, connectivity)
    assert n == host_n
    assert isinstance(labels._meta, cp.ndarray)
    computed = labels.compute()
    assert isinstance(computed, cp.ndarray) and computed.dtype == cp.uint32
    # The same numbering as the numpy path: both are canonical per chunk.
    assert np.array_equal(cp.asnumpy(computed), host_labels.compute())
    ours, theirs = (
        ccl_dask.statistics(device, connectivity),
        ccl_dask.statistics(host, connectivity),
    )
    for key in theirs:
        assert np.array_equal(ours[key], theirs[key], equal_nan=True), key


@needs_cupy
def test_cupy_two_workers_share_the_gpu(two_workers):
    array = random_binary((14, 15, 16), 0.3, seed=12)
    expected, expected_n = in_core(array, 26)
    device = da.from_array(array, chunks=(5, 4, 6)).map_blocks(cp.asarray)
    labels, n = ccl_dask.label(device, 26)
    assert n == expected_n
    computed = labels.compute()
    assert isinstance(computed, cp.ndarray)
    assert np.array_equal(canonical(cp.asnumpy(computed)), canonical(expected))


# ------------------------------------------------------------------------------ errors


def _zeros(shape, dtype=np.uint8):
    return da.zeros(shape, dtype=dtype, chunks=2)


@pytest.mark.parametrize(
    "make, connectivity, error, match",
    [
        (lambda: np.zeros((4, 4), np.uint8), None, TypeError, "ccl.label.*from_array"),
        (lambda: [[1, 0]], None, TypeError, "dask array"),
        (lambda: _zeros(5), None, ValueError, "2-D.*3-D.*1 dimensions"),
        (lambda: _zeros((2,) * 4), None, ValueError, "4 dimensions"),
        (lambda: _zeros((4, 4)), 6, ValueError, "3-D arrays"),
        (lambda: _zeros((4, 4, 4)), 8, ValueError, "2-D arrays"),
        (lambda: _zeros((4, 4)), 5, ValueError, "connectivity must be"),
        (lambda: _zeros((4, 4)), "8", ValueError, "connectivity must be"),
        (lambda: _zeros((4, 4)), True, ValueError, "connectivity must be"),
        (lambda: _zeros((4, 4), np.complex64), None, ValueError, "unsupported dtype"),
    ],
)
@pytest.mark.parametrize("call", ["label", "statistics"])
def test_errors_before_compute(call, make, connectivity, error, match):
    match = match.replace("ccl.label", f"ccl.{call}")
    with pytest.raises(error, match=match):
        getattr(ccl_dask, call)(make(), connectivity)


@pytest.mark.parametrize("call", ["label", "statistics"])
def test_chunks_past_uint32_are_refused(call):
    """Local labels are packed in 32 bits: a chunk of more than 2^32 - 2 elements (a lazy
    array, never made) is refused, not mislabeled."""
    image = da.zeros((2**16 + 1, 2**16), dtype=np.uint8, chunks=(2**16 + 1, 2**16))
    with pytest.raises(ValueError, match="rechunk"):
        getattr(ccl_dask, call)(image)


def test_unknown_algorithm_before_compute():
    image = da.zeros((4, 4), dtype=np.uint8, chunks=2)
    with pytest.raises(ValueError, match="unknown algorithm"):
        ccl_dask.label(image, algorithm="no-such-variant")
    with pytest.raises(ValueError, match="algorithm must be"):
        ccl_dask.label(image, algorithm=3)


def test_named_algorithm():
    name = "cpu-rle"
    if name not in {a.name for a in ccl.algorithms() if a.available}:
        pytest.skip("cpu-rle is not available")
    array = random_binary((13, 17, 11), 0.3, seed=9)
    expected, expected_n = in_core(array, 18)
    labels, n = ccl_dask.label(da.from_array(array, chunks=5), 18, algorithm=name)
    check_labels(labels, n, expected, expected_n, "cpu-rle")


# ------------------------------------------------------------------------------ the module


def test_import_ccl_does_not_import_dask():
    code = "import sys, ccl; assert 'dask' not in sys.modules and 'ccl.dask' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_docstring_examples():
    failures, tried = doctest.testmod(ccl_dask, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
