"""Connected-component labeling of dask arrays, chunk by chunk: arrays larger than memory.

>>> import numpy as np, dask.array as da, ccl.dask
>>> image = da.from_array(np.array([[1, 1, 0, 1],
...                                 [0, 0, 0, 1],
...                                 [1, 0, 1, 1]]), chunks=2)
>>> labels, n = ccl.dask.label(image, 4)     # labels: a lazy dask array
>>> n, labels.compute().tolist()
(3, [[1, 1, 0, 2], [0, 0, 0, 2], [3, 0, 2, 2]])
>>> ccl.dask.statistics(image, 4)["voxel_counts"].tolist()
[5, 2, 4, 1]

How it works, for an array of chunks ``c_0, c_1, ...`` (C order of the block
grid):

1. Each chunk is labeled by :func:`ccl.label` as a dask task, where it lies
   (numpy chunks on the host, CuPy chunks on their GPU): local labels
   ``1..n_i``. The task keeps only the chunk's count, its face labels (the
   local labels on its boundary planes, ascending) and the boundary planes
   themselves (the first and last plane along each axis) with each label
   replaced by its rank among the face labels, copied to the host; the
   chunk's labels are dropped at once.
2. Chunk ``i``'s labels become global by the offset ``n_0 + ... + n_{i-1}``.
3. For every chunk ``A`` and axis with a next chunk ``B`` along it, a task
   compares ``A``'s last plane with the plane that follows it: ``B``'s first
   plane, and for 8-, 18- and 26-connectivity one more row (column) of the
   chunks beside ``B`` on each side, so that voxels touching only across an
   edge or a corner of the chunk grid are joined too. It returns the distinct
   pairs of face ranks that touch, nothing else.
4. One union-find over the small graph of those pairs (the labels that lie on
   a face, not all labels) merges the components that span chunks, and
   numbers every component ``1..N`` without gaps: a label that touches no
   face keeps its place in order, merged ones share their smallest member's
   number. The face labels of the chunks, in chunk order, are the graph's
   nodes in ascending global order, so a pair's nodes are its chunks' node
   offsets plus its ranks: nothing is sorted or searched. The join runs in
   native code on all cores, as the eager pass's last task, so that only
   its result (the face labels of some pair, their numbers, the merged
   ones) comes to the client.
5. The label image is lazy: a task per chunk labels the chunk again (the
   numbering of :func:`ccl.label` is canonical, so the same local labels come
   back) and maps them through the chunk's small lookup: the face labels of
   that chunk with their final numbers; every other label is arithmetic.

Steps 1 to 4 are computed eagerly by :func:`label` (they give ``n``), by
whichever scheduler is active: the threaded one, or ``dask.distributed``
(with dask-cuda's ``LocalCUDACluster``, one worker per GPU). Every task is
a module-level function of plain arguments; nothing assumes one process or
one machine. Peak memory is that of the chunks in flight (each holds its
input, its labels and a lookup of at most its own label count) plus the
boundary planes and the pair graph, never the whole label image.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, List, Optional, Sequence, Tuple

import dask
import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.delayed import Delayed
from dask.highlevelgraph import HighLevelGraph

from . import (
    _algorithm,
    _ccl,
    _check_kind,
    _connectivity,
    _for_dimensions,
    _is_cupy,
    algorithms,
    analyze,
)
from . import label as _label_chunk_in_core

__all__ = ["label", "statistics"]

# Local labels are below 2^32 (ccl.label's uint32), so a pair (chunk, local label) packs
# into one uint64 key: the chunk's flat index above, the label below.
_LOCAL_BITS = 32
_LOCAL_MASK = np.uint64(2**_LOCAL_BITS - 1)
# Labels of an array of up to this many elements fit uint32 (0 is the background).
_U32_LABELS = 2**32 - 2


def label(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
) -> Tuple[Any, int]:
    """Label the connected components of a dask array: ``(labels, n)``, as :func:`ccl.label`.

    ``labels`` is a lazy dask array of the input's shape and chunks, of the
    input's chunk type (numpy chunks give numpy chunks, CuPy chunks CuPy
    chunks on the same GPU): 0 for background and ``1..n`` for the
    components, consecutive, without gaps. ``n`` is an int.

    The numbering differs from :func:`ccl.label`'s raster order: components
    are numbered in the order of the chunk (C order of the block grid) that
    holds their first voxel, then in that chunk's raster order, merged
    components by their first chunk's number. So the partition equals the
    in-core one (and dask-image's): the labels are equal to
    ``ccl.label(image.compute(), connectivity)[0]`` after renumbering both in
    raster order of first occurrence.

    What runs when: the chunks are labeled once eagerly (each task keeps only
    the chunk's count and boundary planes), the pairs across chunk faces are
    found and joined by one union-find on the client, which gives ``n``;
    then ``labels`` is built lazily, and each of its chunks labels its input
    chunk again when computed. So the input's graph is computed twice: it
    must give the same chunks both times (random data seeded per chunk, as
    ``da.random.default_rng(seed)`` does, or ``image.persist()`` first).
    Memory is that of the chunks in flight, never the whole label image (as
    long as what consumes ``labels``, say ``da.store`` or ``to_zarr``, does
    not gather it).

    Parameters
    ----------
    image:
        A 2-D ``(height, width)`` or 3-D ``(depth, height, width)``
        ``dask.array.Array`` of any dtype :func:`ccl.label` accepts (bool,
        integer, float; nonzero is foreground), with numpy or CuPy chunks.
    connectivity:
        As :func:`ccl.label`: 4 or 8 of an image, 6, 18 or 26 of a volume;
        ``None`` is the fullest (8, 26).
    algorithm:
        The variant that labels each chunk (see :func:`ccl.algorithms`), or
        ``None`` for the fastest available one where the chunk lies.

    Returns
    -------
    labels, n
        ``labels``: uint32 where the array has at most 2^32 - 2 elements,
        else uint64. ``n``: the number of components.

    Raises
    ------
    TypeError
        For anything but a dask array (a numpy array: use :func:`ccl.label`,
        or wrap it in ``dask.array.from_array``).
    ValueError
        Before anything is computed: for an array that is neither 2-D nor
        3-D, an unsupported dtype, a connectivity other than 4, 8, 6, 18 or
        26 or one for the other number of dimensions, an unknown algorithm
        or one that lacks the connectivity, or a chunk of more than 2^32 - 2
        elements (rechunk it smaller).
    """
    image, connectivity, algorithm = _checked(image, connectivity, algorithm, "label")
    dtype = np.dtype(np.uint32 if image.size <= _U32_LABELS else np.uint64)
    meta = _meta(image, dtype)
    if image.size == 0:
        return image.map_blocks(_zeros_chunk, dtype.str, dtype=dtype, meta=meta), 0
    work = _without_empty_chunks(image)
    plan = _plan(work, connectivity, algorithm, with_statistics=False)
    labels = _relabeled(work, connectivity, algorithm, plan, dtype, meta)
    if work is not image:
        labels = labels.rechunk(image.chunks)
    return labels, plan.n


def statistics(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
) -> Dict[str, Any]:
    """cc3d's ``statistics`` of the components of a dask array, as
    ``ccl.statistics(image, c, no_slice_conversion=True)`` of the whole array.

    Row ``i`` is label ``i`` of :func:`label` (same connectivity): 0 the
    background, then the components in :func:`label`'s chunk order. Every
    axis is in the array's order (z, y, x of a volume; y, x of an image):

    - ``voxel_counts``: uint64 ``(N + 1,)``, the voxels (pixels) of each
      label; entry 0 counts the background;
    - ``bounding_boxes``: uint32 ``(N + 1, 2 · ndim)``, the inclusive minimum
      and maximum of each axis (z_min, z_max, y_min, y_max, x_min, x_max of
      a volume); a background without voxels has cc3d's row (the maximum of
      uint32 for each minimum, 0 for each maximum);
    - ``centroids``: float64 ``(N + 1, ndim)``, the mean coordinate of each
      label; NaN for a background without voxels.

    The values equal :func:`ccl.statistics`' of the in-core array, rows
    matched through the labels (centroids bit for bit: the coordinate sums
    are reduced exactly, in integers, and divided once); unlike it, the
    counts are uint64 and the boxes always uint32, as a dask array can
    exceed both. An array with no elements gives ``None`` for all three.

    Everything is computed eagerly, in one pass over the chunks: each task
    labels its chunk, analyzes it with :func:`ccl.analyze` where it lies (a
    CuPy chunk on its GPU; only the per-component rows and the boundary
    planes come to the host) and finds the background's box by reductions
    of the chunk's labels; the rows of each chunk are then reduced per final
    component on the client. The results are numpy arrays; their size is
    that of the output, ``O(N)`` rows.

    Parameters and errors are :func:`label`'s; ``algorithm``, if named, must
    be a variant that analyzes.
    """
    image, connectivity, algorithm = _checked(image, connectivity, algorithm, "analyze")
    if image.size == 0:
        return {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
    work = _without_empty_chunks(image)
    plan = _plan(work, connectivity, algorithm, with_statistics=True)
    return _reduced_statistics(plan, work.ndim)


# ------------------------------------------------------------------ checks


def _checked(
    image: Any, connectivity: Any, algorithm: Any, task: str
) -> Tuple[Any, int, Optional[str]]:
    """The arguments checked before anything is computed, as :func:`ccl.label` checks them."""
    if not isinstance(image, da.Array):
        call = "label" if task == "label" else "statistics"
        if hasattr(image, "__array__") or hasattr(image, "__cuda_array_interface__"):
            raise TypeError(
                f"ccl.dask.{call} takes a dask array, not {type(image).__module__}."
                f"{type(image).__name__}: for an array in memory use ccl.{call}, or wrap it "
                f"with dask.array.from_array(array, chunks=...)"
            )
        raise TypeError(f"ccl.dask.{call} takes a dask array, not {type(image).__name__}")
    connectivity = _connectivity(connectivity, volumes=True)
    algorithm = _algorithm(algorithm)
    if image.ndim not in (2, 3):
        raise ValueError(
            f"expected a 2-D (height, width) or 3-D (depth, height, width) dask array, got "
            f"{image.ndim} dimensions (shape {image.shape})"
        )
    _check_kind(image.dtype.kind, image.dtype)
    connectivity = _for_dimensions(connectivity, image.ndim)
    largest = int(np.prod([max(axis, default=0) for axis in image.chunks]))
    if largest > _U32_LABELS:
        # A chunk's local labels must fit 32 bits (the keys of the face pairs pack them).
        raise ValueError(
            f"chunks of at most {_U32_LABELS} elements are labeled (the largest here has "
            f"{largest}): rechunk the array smaller"
        )
    if algorithm is not None:
        # Checked here by name only: whether it can run is the workers' business (the
        # client may have no GPU where the workers do).
        known = {a.name: a for a in algorithms()}
        if algorithm not in known:
            raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(sorted(known))}")
        info = known[algorithm]
        if connectivity not in info.connectivities:
            raise ValueError(
                f"algorithm {algorithm!r} does not take connectivity {connectivity} "
                f"(it takes {', '.join(map(str, info.connectivities))})"
            )
        if task not in info.tasks:
            raise ValueError(f"algorithm {algorithm!r} does not {task} (it can {info.tasks})")
    return image, connectivity, algorithm


def _meta(image: Any, dtype: np.dtype) -> Any:
    """An empty array of the output's type: numpy for numpy chunks, CuPy for CuPy ones."""
    meta = getattr(image, "_meta", None)
    if meta is None:
        return np.empty((0,) * image.ndim, dtype)
    return meta.astype(dtype)


def _zeros_chunk(block: Any, dtype: str) -> Any:
    """The labels of a chunk of an array without elements."""
    return _array_module(block).zeros(block.shape, dtype)


def _without_empty_chunks(image: Any) -> Any:
    """``image`` without chunks of length 0 (which a filtered dask array may have): across one,
    the chunks on either side are neighbours, and the faces are found between neighbours."""
    if all(all(c > 0 for c in axis) for axis in image.chunks):
        return image
    return image.rechunk(tuple(tuple(c for c in axis if c > 0) for axis in image.chunks))


# ------------------------------------------------------------ step 1: chunks


def _array_module(array: Any) -> Any:
    if _is_cupy(array):
        import cupy

        return cupy
    return np


def _to_host(array: Any) -> np.ndarray:
    """A host copy (a numpy view would keep the chunk's whole buffer alive)."""
    if _is_cupy(array):
        return array.get()
    return np.array(array, copy=True)


def _plane(ndim: int, axis: int, index: int) -> Tuple[slice, ...]:
    """The index of plane ``index`` along ``axis`` (``-1``: the last), as a 1-thick slab."""
    sl = slice(index, index + 1) if index >= 0 else slice(index, None)
    return tuple(sl if a == axis else slice(None) for a in range(ndim))


class _ChunkResult:
    """What a chunk's first-pass task keeps: its component count, its face labels (the local
    labels on the boundary planes below, ascending, host uint32), the boundary planes the face
    tasks need (host uint32, each label's 1-based rank among the face labels, 0 background;
    ``None`` where no face needs one) and, for :func:`statistics`, its rows."""

    __slots__ = ("n", "faces", "firsts", "lasts", "rows")

    def __init__(self, n: int, faces: np.ndarray, firsts: list, lasts: list, rows: Any):
        self.n = n
        self.faces = faces
        self.firsts = firsts
        self.lasts = lasts
        self.rows = rows


def _label_chunk(
    block: Any,
    connectivity: int,
    algorithm: Optional[str],
    firsts: Sequence[bool],
    lasts: Sequence[bool],
    origin: Optional[Sequence[int]],
) -> _ChunkResult:
    """Step 1: label one chunk where it lies and keep its count, its face labels and the boundary
    planes named by ``firsts`` / ``lasts`` (per axis) as ranks among them; with an ``origin``,
    also its statistics rows."""
    labels, n = _label_chunk_in_core(block, connectivity, algorithm=algorithm)
    n = int(n)
    ndim = block.ndim
    xp = _array_module(labels)
    kept = [(a, 0) for a in range(ndim) if firsts[a]] + [(a, -1) for a in range(ndim) if lasts[a]]
    planes = {
        (a, i): labels[_plane(ndim, a, i)].reshape(_drop(labels.shape, a)) for a, i in kept
    }
    # Where the labels lie: a label's rank among the face labels is the running count of
    # labels seen on a face up to it (0 stays 0: the background is never marked).
    on_face = xp.zeros(n + 1, bool)
    for plane in planes.values():
        on_face[plane] = True
    on_face[0] = False
    rank = xp.cumsum(on_face, dtype=np.uint32)
    faces = _to_host(xp.flatnonzero(on_face)).astype(np.uint32)
    ranked = {key: _to_host(rank[plane]) for key, plane in planes.items()}
    first_planes = [ranked.get((a, 0)) for a in range(ndim)]
    last_planes = [ranked.get((a, -1)) for a in range(ndim)]
    rows = None
    if origin is not None:
        rows = _chunk_rows(block, labels, n, connectivity, algorithm, origin)
    return _ChunkResult(n, faces, first_planes, last_planes, rows)


def _drop(shape: Tuple[int, ...], axis: int) -> Tuple[int, ...]:
    return tuple(s for a, s in enumerate(shape) if a != axis)


def _count_of(result: _ChunkResult) -> int:
    return result.n


def _rows_of(result: _ChunkResult) -> Any:
    return result.rows


def _faces_of(result: _ChunkResult) -> np.ndarray:
    return result.faces


def _last_plane_of(result: _ChunkResult, axis: int) -> np.ndarray:
    return result.lasts[axis]


def _first_plane_piece(result: _ChunkResult, axis: int, side: Sequence[int]) -> np.ndarray:
    """The part of a chunk's first plane along ``axis`` that a face beside it needs: for each
    other axis, its last row where the chunk lies before the face (``side`` -1), its first
    where after (+1), all of it where level (0). Sliced here, where the plane lies, so that
    only the strip travels."""
    plane = result.firsts[axis]
    index = tuple(
        slice(-1, None) if s < 0 else slice(0, 1) if s > 0 else slice(None) for s in side
    )
    return np.ascontiguousarray(plane[index])


# ------------------------------------------------------------- step 3: faces


def _in_plane_offsets(connectivity: int, ndim: int) -> List[Tuple[int, ...]]:
    """The offsets, within the plane that follows a face, of the voxels (pixels) that touch
    one voxel of the face's last plane: 4 / 6 only the facing one; 8 and 26 every one of the
    3^(ndim-1); 18 those that differ in at most one more axis."""
    every = list(itertools.product((-1, 0, 1), repeat=ndim - 1))
    if connectivity in (4, 6):
        return [(0,) * (ndim - 1)]
    if connectivity == 18:
        return [d for d in every if sum(map(abs, d)) <= 1]
    return every


def _face_pairs(
    last: np.ndarray,
    chunk: int,
    pieces: Sequence[Sequence[Any]],
    offsets: Sequence[Sequence[int]],
) -> Tuple[np.ndarray, np.ndarray]:
    """Step 3: the distinct pairs of face labels that touch across one face, as two uint64
    arrays of keys (chunk << 32 | the label's rank among its chunk's face labels).

    ``last`` is the last plane of chunk ``chunk`` (flat index) along the face's axis, as ranks;
    ``pieces`` the plane that follows it, as ``[side, labels, chunk]``: side 0 the next
    chunk's first plane, the others strips of its neighbours' (see
    :func:`_first_plane_piece`). The plane that follows is laid out padded by one before and
    after ``last``'s extent along each axis where a piece lies there; ``offsets`` are the
    in-plane offsets that touch."""
    shape = last.shape
    low = [int(any(side[a] < 0 for side, _, _ in pieces)) for a in range(last.ndim)]
    high = [int(any(side[a] > 0 for side, _, _ in pieces)) for a in range(last.ndim)]
    padded = tuple(lo + n + hi for lo, n, hi in zip(low, shape, high))
    # The plane that follows: ranks, and which piece (chunk) each comes from.
    following = np.zeros(padded, np.uint32)
    source = np.zeros(padded, np.uint8)
    chunks = []
    for slot, (side, piece, piece_chunk) in enumerate(pieces):
        region = tuple(
            slice(0, 1) if s < 0 else slice(lo + n, lo + n + 1) if s > 0 else slice(lo, lo + n)
            for s, lo, n in zip(side, low, shape)
        )
        following[region] = piece
        source[region] = slot
        chunks.append(piece_chunk)
    # The pairs, deduplicated per neighbour chunk, in native code with the GIL released (as
    # numpy steps the faces took more of a worker's threads than labeling the chunks). An
    # image's face is one row.
    rows, no_row = (1,) * (2 - last.ndim), (0,) * (2 - last.ndim)
    last = np.ascontiguousarray(last, np.uint32).reshape(rows + shape)
    following, source = following.reshape(rows + padded), source.reshape(rows + padded)
    steps = np.array([(0,) * (2 - len(d)) + tuple(d) for d in offsets], np.int64).reshape(-1, 2)
    at = [a.__array_interface__["data"][0] for a in (last, following, source, steps)]
    packed, lengths = _ccl.face_pairs(
        at[0], last.shape, at[1], at[2], following.shape, no_row + tuple(low), at[3], len(steps),
        len(chunks),
    )  # fmt: skip
    packed, lengths = np.asarray(packed), np.asarray(lengths).astype(np.int64)
    ends = np.cumsum(lengths)
    shift = np.uint64(_LOCAL_BITS)
    keys_a, keys_b = [], []
    for piece_chunk, begin, end in zip(chunks, ends - lengths, ends):
        # Within one neighbour chunk both ranks are local (32 bits): a pair is one uint64.
        part = packed[begin:end]
        keys_a.append((np.uint64(chunk) << shift) | (part >> shift))
        keys_b.append((np.uint64(piece_chunk) << shift) | (part & _LOCAL_MASK))
    empty = [np.zeros(0, np.uint64)]
    return np.concatenate(keys_a + empty), np.concatenate(keys_b + empty)


# ------------------------------------------------- steps 2 and 4: the plan


class _Plan:
    """What the eager pass found: the counts and offsets of the chunks (C order of the block
    grid), the face labels that are not their component's smallest (``merged``, sorted
    global labels) with their final numbers, ``n``; and, for the statistics, the face labels
    of some pair (sorted) with their final numbers and the chunks' rows (``None`` for a
    labeling, whose relabeling needs only the merged labels)."""

    def __init__(
        self,
        counts: np.ndarray,
        faces: np.ndarray,
        finals: np.ndarray,
        merged: np.ndarray,
        merged_finals: np.ndarray,
        rows: Optional[list],
        keep_faces: bool = True,
    ):
        self.counts = counts
        self.offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self.total = int(counts.sum())
        self.merged = merged
        self.merged_finals = merged_finals
        self.faces = faces if keep_faces else None
        self.finals = finals if keep_faces else None
        self.n = self.total - len(merged)
        self.rows = rows

    def final_of(self, globals_: np.ndarray) -> np.ndarray:
        """The final numbers of global labels (1..total), on the host."""
        out = globals_ - np.searchsorted(self.merged, globals_, side="left")
        where = np.searchsorted(self.faces, globals_)
        where = np.minimum(where, max(len(self.faces) - 1, 0))
        if len(self.faces):
            on_face = self.faces[where] == globals_
            out[on_face] = self.finals[where[on_face]]
        return out


def _plan(image: Any, connectivity: int, algorithm: Optional[str], with_statistics: bool) -> _Plan:
    """Steps 1 to 4: label every chunk, find the pairs across every face, and join them.

    The tasks form one graph (a dict of tasks, not a ``dask.delayed`` per task, whose graphs
    dask would merge and cull one by one) computed by the active scheduler; its last task
    gathers the counts, the face labels, the pairs and the rows and joins them: the plan
    comes to the client."""
    grid = image.numblocks
    ndim = image.ndim
    name = "ccl-dask-plan-" + tokenize(image, connectivity, algorithm, with_statistics)
    starts = [np.concatenate([[0], np.cumsum(c)[:-1]]).astype(int) for c in image.chunks]
    offsets = _in_plane_offsets(connectivity, ndim)
    graph: Dict[Any, Any] = {}
    counts, face_labels, rows, faces = [], [], [], []
    for flat, index in enumerate(np.ndindex(*grid)):
        firsts = [index[a] > 0 for a in range(ndim)]
        lasts = [index[a] < grid[a] - 1 for a in range(ndim)]
        origin = [int(starts[a][index[a]]) for a in range(ndim)] if with_statistics else None
        graph[(name, "chunk", flat)] = (
            _label_chunk, (image.name,) + index, connectivity, algorithm, firsts, lasts, origin
        )  # fmt: skip
        counts.append((name, "count", flat))
        graph[counts[-1]] = (_count_of, (name, "chunk", flat))
        face_labels.append((name, "face-labels", flat))
        graph[face_labels[-1]] = (_faces_of, (name, "chunk", flat))
        if with_statistics:
            rows.append((name, "rows", flat))
            graph[rows[-1]] = (_rows_of, (name, "chunk", flat))
    for flat, index in enumerate(np.ndindex(*grid)):
        for axis in range(ndim):
            if index[axis] < grid[axis] - 1:
                faces.append(_face_task(graph, name, index, axis, grid, offsets))
    graph[(name, "plan")] = (_planned, counts, face_labels, faces, rows, with_statistics)
    layers = HighLevelGraph.from_collections(name, graph, dependencies=[image])
    (plan,) = dask.compute(Delayed((name, "plan"), layers, layer=name))
    return plan


def _face_task(
    graph: Dict[Any, Any], name: str, index: tuple, axis: int, grid: tuple, offsets: list
) -> Any:
    """Adds the task of the face after chunk ``index`` along ``axis`` to ``graph``, and
    returns its key: the chunk's last plane, the next chunk's first plane and the strips of
    that chunk's neighbours which ``offsets`` reach."""
    ndim = len(grid)
    others = [a for a in range(ndim) if a != axis]
    flat = int(np.ravel_multi_index(index, grid))
    following = list(index)
    following[axis] += 1
    pieces = []
    for side in itertools.product((-1, 0, 1), repeat=ndim - 1):
        # A neighbour of the next chunk is needed where an offset leads into it.
        if not any(all(s == 0 or d[i] == s for i, s in enumerate(side)) for d in offsets):
            continue
        where = list(following)
        for a, s in zip(others, side):
            where[a] += s
        if any(not 0 <= where[a] < grid[a] for a in others):
            continue
        neighbour = int(np.ravel_multi_index(tuple(where), grid))
        key = (name, "piece", neighbour, axis) + side
        graph[key] = (_first_plane_piece, (name, "chunk", neighbour), axis, list(side))
        pieces.append([list(side), key, neighbour])
    last = (name, "last", flat, axis)
    graph[last] = (_last_plane_of, (name, "chunk", flat), axis)
    key = (name, "face", flat, axis)
    graph[key] = (_face_pairs, last, flat, pieces, [list(d) for d in offsets])
    return key


def _planned(
    counts: list, face_labels: list, faces: list, rows: list, with_statistics: bool
) -> "_Plan":
    """The last task of the eager pass: the chunks' counts and face labels and the face pairs
    joined into the plan (step 4), where the task runs, so that only the plan travels to the
    client, not every face label and pair."""
    empty = [np.zeros(0, np.uint64)]
    keys_a = np.concatenate([f[0] for f in faces] + empty)
    keys_b = np.concatenate([f[1] for f in faces] + empty)
    return _joined(
        np.asarray(counts, np.int64),
        face_labels,
        keys_a,
        keys_b,
        rows if with_statistics else None,
        keep_faces=with_statistics,
    )


def _joined(
    counts: np.ndarray,
    face_labels: list,
    keys_a: np.ndarray,
    keys_b: np.ndarray,
    rows: Optional[list],
    keep_faces: bool = True,
) -> _Plan:
    """Step 4: the union-find over the face pairs and the final numbering, in native code on
    all cores (``_ccl.join_chunk_faces``).

    The nodes are the chunks' face labels in chunk order: ascending global labels, since a
    chunk's labels follow the earlier chunks' and its face labels ascend. A key's node is
    its chunk's first node plus its rank, so no sort or search maps the pairs. The plan lists
    only the face labels of some pair: one that touches nothing across its face is a
    component of its chunk alone, numbered by arithmetic like the chunk's others."""
    sizes = np.array([len(f) for f in face_labels], np.int64)
    local = np.concatenate([np.asarray(f, np.uint32) for f in face_labels] + [np.zeros(0, np.uint32)])
    counts = np.ascontiguousarray(counts, np.int64)
    keys_a, keys_b = (np.ascontiguousarray(k, np.uint64) for k in (keys_a, keys_b))
    at = [a.__array_interface__["data"][0] for a in (counts, sizes, local, keys_a, keys_b)]
    joined = _ccl.join_chunk_faces(at[0], at[1], len(counts), at[2], at[3], at[4], len(keys_a))
    # Labels are below 2^63: the uint64 values read as int64 unchanged.
    paired, finals, merged, merged_finals = (np.asarray(a).view(np.int64) for a in joined)
    return _Plan(counts, paired, finals, merged, merged_finals, rows, keep_faces)


# --------------------------------------------------------- step 5: relabel


class _ChunkLookup:
    """One chunk's relabeling: global = ``offset`` + local, then final = global − (merged
    labels below it), but for a merged label (one that is not its component's smallest,
    all of them on a face), whose final number is listed. ``count`` is the chunk's count in
    the eager pass; ``shift`` is ``offset`` less the merged labels of earlier chunks;
    ``merged`` the chunk's merged local labels (sorted, uint32), ``finals`` their numbers.
    A face label that is its component's smallest needs no entry: its number is the
    arithmetic one."""

    __slots__ = ("count", "shift", "merged", "finals")

    def __init__(self, count: int, shift: int, merged: np.ndarray, finals: np.ndarray):
        self.count = count
        self.shift = shift
        self.merged = merged
        self.finals = finals


def _lookup(plan: _Plan, flat: int) -> _ChunkLookup:
    offset, count = int(plan.offsets[flat]), int(plan.counts[flat])
    mlo, mhi = np.searchsorted(plan.merged, [offset, offset + count], side="right")
    return _ChunkLookup(
        count,
        offset - int(mlo),
        (plan.merged[mlo:mhi] - offset).astype(np.uint32),
        plan.merged_finals[mlo:mhi],
    )


def _relabel_chunk(
    block: Any, connectivity: int, algorithm: Optional[str], lookup: _ChunkLookup, dtype: str
) -> Any:
    """Step 5: the final labels of one chunk, where it lies."""
    labels, n = _label_chunk_in_core(block, connectivity, algorithm=algorithm)
    if n != lookup.count:
        raise RuntimeError(
            f"a chunk of the input has {n} components now and had {lookup.count} when "
            f"ccl.dask.label counted them: the input's graph gives other values each time it "
            f"is computed (unseeded random data?); persist it first (image.persist())"
        )
    xp = _array_module(labels)
    if len(lookup.merged) == 0:
        # No label of this chunk is merged into another: one shift.
        wide = labels.astype(dtype)
        return xp.where(labels != 0, wide + np.dtype(dtype).type(lookup.shift), wide)
    # A table of the chunk's n + 1 labels (at most the chunk's size), on its device.
    merged = xp.asarray(lookup.merged.astype(np.int64))
    below = xp.zeros(n + 1, np.int64)
    below[merged] = 1
    table = xp.arange(n + 1, dtype=np.int64) + lookup.shift - xp.cumsum(below)
    table[merged] = xp.asarray(lookup.finals)
    table[0] = 0
    return xp.take(table.astype(dtype), labels)


def _relabeled(
    image: Any,
    connectivity: int,
    algorithm: Optional[str],
    plan: _Plan,
    dtype: np.dtype,
    meta: Any,
) -> Any:
    """The lazy label image: one task per chunk, each with its own lookup only."""
    name = "ccl-dask-label-" + tokenize(
        image, connectivity, algorithm, plan.merged, plan.merged_finals
    )
    grid = image.numblocks
    graph = {}
    for flat, index in enumerate(np.ndindex(*grid)):
        # The lookup is an object of its own class, which dask passes through untouched.
        graph[(name,) + index] = (
            _relabel_chunk,
            (image.name,) + index,
            connectivity,
            algorithm,
            _lookup(plan, flat),
            dtype.str,
        )
    layers = HighLevelGraph.from_collections(name, graph, dependencies=[image])
    return da.Array(layers, name, image.chunks, meta=meta)


# -------------------------------------------------------------- statistics


def _chunk_rows(
    block: Any,
    labels: Any,
    n: int,
    connectivity: int,
    algorithm: Optional[str],
    origin: Sequence[int],
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One chunk's statistics rows in the array's coordinates, host numpy: ``(counts, mins,
    maxs, sums)``, row 0 the chunk's background, row i its local label i. The components'
    rows are :func:`ccl.analyze`'s (where the chunk lies); the background's count and sums
    are the totals less theirs, its box the reductions of ``labels == 0``."""
    ndim = block.ndim
    f = analyze(block, connectivity, algorithm=algorithm)
    names = ("z", "y", "x")[-ndim:]

    def host(column: Any) -> np.ndarray:
        return _to_host(column).astype(np.int64)

    area = host(f.area)
    mins = np.stack([host(getattr(f, c + "_min")) for c in names], axis=1).reshape(n, ndim)
    maxs = np.stack([host(getattr(f, c + "_max")) for c in names], axis=1).reshape(n, ndim)
    sums = np.stack(
        [_to_host(getattr(f, "sum_" + c)).astype(np.uint64) for c in names], axis=1
    ).reshape(n, ndim)
    shape = block.shape
    size = int(np.prod(shape))
    background = size - int(area.sum())
    # The sum of each coordinate over the whole chunk: 0 + 1 + ... + (s - 1), times the rest.
    totals = [s * (s - 1) // 2 * (size // s) for s in shape]
    bg_sums = np.array(
        [t - int(sums[:, a].sum(dtype=np.uint64)) for a, t in enumerate(totals)], np.uint64
    )
    if background == 0:
        bg_min, bg_max = np.full(ndim, np.iinfo(np.int64).max), np.full(ndim, -1)
    elif background == size:
        bg_min, bg_max = np.zeros(ndim, np.int64), np.array(shape, np.int64) - 1
    else:
        xp = _array_module(labels)
        zero = labels == 0
        bg_min, bg_max = np.zeros(ndim, np.int64), np.zeros(ndim, np.int64)
        for a in range(ndim):
            along = _to_host(xp.any(zero, axis=tuple(b for b in range(ndim) if b != a)))
            where = np.flatnonzero(along)
            bg_min[a], bg_max[a] = where[0], where[-1]
    at = np.array(origin, np.int64)
    counts = np.concatenate([[background], area]).astype(np.uint64)
    if background:  # else the sentinel stays
        bg_min, bg_max = bg_min + at, bg_max + at
    mins = np.concatenate([bg_min[None], mins + at])
    maxs = np.concatenate([bg_max[None], maxs + at])
    sums = np.concatenate([bg_sums[None], sums])
    # Sums in the array's coordinates: each voxel's coordinate grows by the origin.
    sums = sums + counts[:, None] * at.astype(np.uint64)[None]
    return counts, mins, maxs, sums


def _reduced_statistics(plan: _Plan, ndim: int) -> Dict[str, Any]:
    """The chunks' rows reduced per final component: counts and sums added, boxes widened."""
    rows = plan.rows
    n = plan.n
    counts = np.zeros(n + 1, np.uint64)
    mins = np.full((n + 1, ndim), np.iinfo(np.int64).max, np.int64)
    maxs = np.full((n + 1, ndim), -1, np.int64)
    sums = np.zeros((n + 1, ndim), np.uint64)
    # Row 0: the background of every chunk.
    counts[0] = sum(int(r[0][0]) for r in rows)
    mins[0] = np.min([r[1][0] for r in rows], axis=0)
    maxs[0] = np.max([r[2][0] for r in rows], axis=0)
    sums[0] = np.sum([r[3][0] for r in rows], axis=0, dtype=np.uint64)
    # The components: chunk after chunk, global labels 1..total in order.
    c_counts, c_mins, c_maxs, c_sums = (np.concatenate([r[k][1:] for r in rows]) for k in range(4))
    final = plan.final_of(np.arange(1, plan.total + 1, dtype=np.int64))
    on_face = np.zeros(plan.total, bool)
    on_face[plan.faces - 1] = True
    # A label on no face is a component alone: its row is copied; the others are reduced.
    alone = ~on_face
    counts[final[alone]] = c_counts[alone]
    mins[final[alone]] = c_mins[alone]
    maxs[final[alone]] = c_maxs[alone]
    sums[final[alone]] = c_sums[alone]
    f = final[on_face]
    np.add.at(counts, f, c_counts[on_face])
    np.minimum.at(mins, f, c_mins[on_face])
    np.maximum.at(maxs, f, c_maxs[on_face])
    np.add.at(sums, f, c_sums[on_face])
    boxes = np.empty((n + 1, 2 * ndim), np.uint32)
    if counts[0] == 0:
        # No background: cc3d's row of a label without voxels.
        mins[0], maxs[0] = np.iinfo(np.uint32).max, 0
    boxes[:, 0::2] = mins
    boxes[:, 1::2] = maxs
    with np.errstate(invalid="ignore", divide="ignore"):
        # As ccl.statistics and cc3d: the exact sum divided by the count, once.
        centroids = sums.astype(np.float64) / counts.astype(np.float64)[:, None]
    return {"voxel_counts": counts, "bounding_boxes": boxes, "centroids": centroids}
