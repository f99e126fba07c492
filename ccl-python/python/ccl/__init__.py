"""Connected component labeling and analysis of binary images, on NVIDIA GPUs and the CPU.

>>> import numpy as np, ccl
>>> image = np.array([[1, 1, 0, 0],
...                   [0, 1, 0, 7],
...                   [0, 0, 0, 7]])
>>> labels, n = ccl.label(image)                       # like scipy.ndimage.label
>>> n, labels.tolist()
(2, [[1, 1, 0, 0], [0, 1, 0, 2], [0, 0, 0, 2]])
>>> n, labels, stats, centroids = ccl.connected_components_with_stats(image)  # like OpenCV
>>> stats.tolist()                                    # left, top, width, height, area
[[0, 0, 4, 3, 7], [0, 0, 2, 2, 3], [3, 1, 1, 2, 2]]
>>> volume = np.zeros((2, 2, 2), np.uint8)           # (depth, height, width)
>>> volume[0, 0, 0] = volume[1, 1, 1] = 1            # two voxels sharing a corner
>>> ccl.label(volume)[1], ccl.label(volume, 6)[1]    # 26-connected by default
(1, 2)
>>> ccl.statistics(volume, 6)["voxel_counts"].tolist()  # like cc3d.statistics
[6, 1, 1]

Any 2-D array-like works; nonzero is foreground. numpy arrays (and lists, and
CPU torch tensors) are labeled by the fastest variant available: a CUDA one
where a GPU works, else the multi-core CPU labeler ``cpu-rle``. CuPy arrays
and CUDA torch tensors (or any object with ``__cuda_array_interface__`` or a
CUDA ``__dlpack__``) are labeled where they lie, on the caller's current
stream, and the results are arrays of the same framework on the same device.
``ccl.algorithms()`` lists every variant; ``algorithm="name"`` picks one.

3-D arrays ``(depth, height, width)``, indexed ``[z, y, x]``, are volumes:
:func:`label`, :func:`analyze` and :func:`statistics` (cc3d's) take them
with connectivity 6, 18 or 26 (26 by default), by the fastest variant
available that labels volumes (:func:`label` and :func:`analyze` also in GPU
memory; :func:`statistics` from host memory).

Larger than a GPU: ``label(array, max_gpu_memory="8GiB")`` labels a host
array in strips streamed through the GPU (always so past 2**32 - 2 pixels,
with uint64 labels), and ``ccl.dask`` labels dask arrays chunk by chunk.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy as np

from . import _ccl

__all__ = [
    "AlgorithmInfo",
    "CV_16U",
    "CV_32S",
    "Features",
    "VolumeFeatures",
    "algorithms",
    "analyze",
    "connected_components",
    "connected_components_with_stats",
    "connected_components_with_stats_with_algorithm",
    "dust",
    "keep",
    "label",
    "label_classes",
    "largest_k",
    "statistics",
]

CV_32S = 4
"""OpenCV's ``cv2.CV_32S``: int32 labels, the default ``ltype``."""
CV_16U = 2
"""OpenCV's ``cv2.CV_16U``: uint16 labels (at most 65535 components)."""

# OpenCV's ccltype values (cv2.CCL_*) and whether each numbers components as
# ccl does (raster order of their first pixel) in 8-connectivity. In
# 4-connectivity every one of them does (OpenCV 5.0; the tests check it).
_CCLTYPES = {
    -1: ("CCL_DEFAULT", False),
    0: ("CCL_WU", True),
    1: ("CCL_GRANA", False),
    2: ("CCL_BOLELLI", False),
    3: ("CCL_SAUF", True),
    4: ("CCL_BBDT", False),
    5: ("CCL_SPAGHETTI", False),
}

_IMAGE_CONNECTIVITIES = (4, 8)
_VOLUME_CONNECTIVITIES = (6, 18, 26)


class AlgorithmInfo(NamedTuple):
    """One registered variant, as :func:`algorithms` reports it."""

    name: str
    """The name ``algorithm=`` takes, e.g. ``"ha8-32"``, ``"cpu-rle"``."""
    backend: str
    """``"cuda"`` or ``"cpu"``."""
    connectivities: Tuple[int, ...]
    """The connectivities it implements: of images 4 and / or 8, e.g. ``(4, 8)``; of
    volumes 6, 18 and 26 for those that label volumes, e.g. ``(4, 8, 6, 18, 26)``."""
    tasks: Tuple[str, ...]
    """``"label"`` and / or ``"analyze"``."""
    available: bool
    """Whether it can run on this machine."""
    reason: Optional[str]
    """Why it cannot run here, or ``None``."""
    summary: str
    """One line: what it is and the paper it follows."""
    priority: int
    """Higher is preferred when no algorithm is named."""


class Features(NamedTuple):
    """The features of every component, as :func:`analyze` returns them.

    Index ``i`` describes the component labeled ``i + 1`` by :func:`label`
    (components in raster order of their first pixel); there is no
    background entry. Bounds are inclusive.
    """

    area: Any
    """Pixels per component (uint32)."""
    x_min: Any
    """Smallest column (uint32)."""
    y_min: Any
    """Smallest row (uint32)."""
    x_max: Any
    """Largest column, inclusive (uint32)."""
    y_max: Any
    """Largest row, inclusive (uint32)."""
    sum_x: Any
    """Sum of the columns of the component's pixels (uint64)."""
    sum_y: Any
    """Sum of the rows of the component's pixels (uint64)."""
    centroids: Any
    """``(N, 2)`` float64: ``(sum_x, sum_y) / area``."""


class VolumeFeatures(NamedTuple):
    """The features of every component of a volume, as :func:`analyze` returns them.

    :class:`Features` extended with z: index ``i`` describes the component
    labeled ``i + 1`` by :func:`label` (components in raster order of their
    first voxel: z, then y, then x); there is no background entry. x is the
    last axis of the ``(depth, height, width)`` array, z the first. Bounds
    are inclusive.
    """

    area: Any
    """Voxels per component (uint32)."""
    x_min: Any
    """Smallest column, index of the last axis (uint32)."""
    y_min: Any
    """Smallest row, index of the middle axis (uint32)."""
    z_min: Any
    """Smallest slice, index of the first axis (uint32)."""
    x_max: Any
    """Largest column, inclusive (uint32)."""
    y_max: Any
    """Largest row, inclusive (uint32)."""
    z_max: Any
    """Largest slice, inclusive (uint32)."""
    sum_x: Any
    """Sum of the columns of the component's voxels (uint64)."""
    sum_y: Any
    """Sum of the rows of the component's voxels (uint64)."""
    sum_z: Any
    """Sum of the slices of the component's voxels (uint64)."""
    centroids: Any
    """``(N, 3)`` float64: ``(sum_x, sum_y, sum_z) / area``, x first as in :class:`Features`."""


def algorithms() -> List[AlgorithmInfo]:
    """Every registered variant, sorted by name, with whether it can run here and why not."""
    return [
        AlgorithmInfo(name, backend, tuple(conns), tuple(tasks), available, reason, summary, prio)
        for (name, backend, conns, tasks, available, reason, summary, prio) in _ccl.algorithms()
    ]


def label(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    out: Optional[np.ndarray] = None,
    batch: bool = False,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: Optional[Tuple[int, ...]] = None,
    max_extent: Optional[Tuple[int, ...]] = None,
    dtype: Any = None,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Tuple[Any, Any]:
    """Label the connected components of ``image``: ``(labels, n)``, as ``scipy.ndimage.label``.

    ``labels`` has the image's shape and dtype uint32: 0 for background and
    1..n for the components, numbered in raster order of each component's
    first pixel (as scipy and OpenCV's ``CCL_WU`` number them); for a
    volume, in raster order of each component's first voxel, z then y then
    x (as scipy numbers them). ``n`` is the number of components.

    Parameters
    ----------
    image:
        A 2-D array-like ``(height, width)``, or a 3-D one ``(depth, height,
        width)``, a volume, indexed ``[z, y, x]`` (bool, integer or float;
        any layout); nonzero is foreground. CuPy arrays and CUDA torch
        tensors (images and volumes) are labeled on their GPU, on the
        current stream, and ``labels`` is an array of the same framework on
        the same device (torch: ``torch.uint32`` where torch has it, else
        ``torch.int32``). A host array labeled by a CUDA variant is
        uploaded for the call; from 2**23 pixels on, it is streamed through
        the GPU in strips as ``max_gpu_memory`` does (pinned copies on
        several streams: 5-10 times faster than one upload and a pageable
        copy back), with the same labels.
    connectivity:
        Of an image, 4 (edge neighbours) or 8 (edges and corners); of a
        volume, 6 (face neighbours, scipy's
        ``generate_binary_structure(3, 1)``), 18 (faces and edges, ``(3,
        2)``) or 26 (faces, edges and corners, ``(3, 3)``). ``None``, the
        default, is the fullest: 8 for an image, 26 for a volume (as
        cc3d's default).
    algorithm:
        A variant's name (see :func:`algorithms`), or ``None`` for the
        fastest available one that labels such an input.
    out:
        For a host image or volume: a C-contiguous, writable numpy array of
        its shape and dtype uint32 or int32, apart from it, into which the
        labels are written (every element is overwritten); it is returned as
        ``labels``. Reused across calls, it spares each call a new array
        and, on the CPU, the page faults of its first writes.
    batch:
        ``True`` for a batch of images of one size: ``image`` is ``(n_images,
        height, width)`` or ``(n_images, 1, height, width)`` (a network's
        masks), each image labeled apart in an image's connectivity (4 or
        8, default 8) and numbered 1..n_i in its own raster order; the
        result is ``(labels, counts)``, ``labels`` of the input's shape and
        ``counts`` the ``(n_images,)`` uint32 component counts (int32 in a
        torch without uint32), both on the input's device: a GPU batch is
        labeled in one launch sequence on the current stream, and nothing
        is copied to the host.
    min_size, max_size, largest, min_extent, max_extent:
        The clean-up after the labeling (all ``None``: none): keep only the
        components of ``min_size`` to ``max_size`` pixels (voxels),
        inclusive (``min_size`` is cc3d's ``dust`` threshold), whose
        bounding box spans ``min_extent`` to ``max_extent`` along each
        axis (a tuple in the array's axis order: ``(height, width)`` or
        ``(depth, height, width)``), and of those the ``largest`` by size
        (``largest=1`` is MONAI's keep-largest; among equal sizes the
        first in raster order); each image of a batch apart. What is kept
        is numbered 1..k in the same order, and ``n`` (``counts``) is k. A
        GPU array is cleaned on its device, on the current stream, from
        the labels just made: nothing is labeled twice and the labels never
        leave the device. :func:`keep` returns the mask instead.
    dtype:
        The labels' dtype: ``None`` for uint32 (torch: ``torch.uint32``
        where torch has it, else ``torch.int32``); ``"uint16"``,
        ``"uint32"``, ``"uint64"``, ``"int32"`` or ``"int64"`` (numpy,
        CuPy or torch dtypes of those names work too); or ``"auto"``, the
        smallest that holds ``n``: uint16 or uint32, as cc3d's
        ``out_dtype=None`` (torch: int32 or int64, the types torch computes
        with). A type too small for ``n`` is a ``ValueError``. The
        conversion runs where the labels lie.
    max_gpu_memory:
        For a host (numpy) image or volume larger than the GPU's memory:
        label it in strips (runs of rows, or of slices) streamed through the
        GPU, taking at most this much of its memory (bytes, or a string such
        as ``"8GiB"``, ``"512MiB"``, ``"2GB"``); the labels are the same as
        labeling it whole. An array of more than 2**32 - 2 pixels is always
        labeled so (80 % of the free GPU memory when not given), and its
        labels are uint64 (uint32 otherwise; ``out=`` may be either, and a
        page-locked one, such as ``cupyx.empty_pinned``'s, takes the labels
        straight from the GPU, without a copy through a staging buffer).
        With a CPU ``algorithm`` the cap is the host's working memory. The
        strip labelers of the last two settings (cap, devices, algorithm,
        connectivity) stay for the next call, with their pinned buffers and,
        on GPUs, the device buffers of the strip labels they kept (within
        the cap): a call after the first allocates none of them again.
    devices:
        With strips: the GPUs (ordinals) to deal them to, four workers
        each; default ``[0]``.

    An image or volume with no pixels (a 0 in its shape) has no components:
    an empty ``labels`` and 0, as scipy returns.

    Raises
    ------
    ValueError
        For ``None`` (what ``cv2.imread`` returns for a file it cannot read)
        or an array that is neither 2-D nor 3-D, an unsupported dtype, a
        connectivity other than 4, 8, 6, 18 or 26 or one for the other
        number of dimensions (6, 18 or 26 of an image, 4 or 8 of a
        volume), an unknown algorithm or one that lacks the connectivity;
        for an ``out`` that is not such an array, or with a GPU array; for
        a GPU array with a CPU variant named.
    RuntimeError
        When the algorithm cannot run here (no GPU, say) or CUDA fails.
    """
    cleanup = _Cleanup.of(min_size, max_size, largest, min_extent, max_extent)
    if _wants_strips(image, max_gpu_memory, devices):
        if batch or cleanup is not None:
            raise ValueError(
                "batch= and the clean-up need the whole label image on one device; strips "
                "(max_gpu_memory=, devices=, or an array past 2**32 - 2 pixels) stream it"
            )
        labels, n = _label_strips(image, connectivity, algorithm, out, max_gpu_memory, devices)
    elif batch:
        filtered = None if out is not None else _label_batch_filtered(
            image, connectivity, algorithm, cleanup, mask=False
        )
        if filtered is not None:
            (labels, n), cleanup = filtered, None
        else:
            labels, n = _label_batch(image, connectivity, algorithm, out)
    elif cleanup is None and _strips_are_faster(image, connectivity, algorithm, out):
        labels, n = _label_strips(image, connectivity, algorithm, out, None, None)
    else:
        filtered = _label_filtered(image, connectivity, algorithm, out, cleanup)
        if filtered is not None:
            (labels, n), cleanup = filtered, None
        else:
            labels, n = _label(image, connectivity, algorithm, out, volumes=True)
    if cleanup is not None:
        n = cleanup.apply(labels, n, batch, connectivity, algorithm)
    if dtype is not None:
        labels = _cast_labels(labels, n, dtype)
    return labels, n


def label_classes(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    batch: bool = False,
    dtype: Any = None,
) -> Tuple[Any, ...]:
    """Label a class map: ``(labels, classes)``, the components of each class apart, as cc3d's
    ``connected_components`` labels a multilabel image.

    Two pixels are connected when they are neighbours and hold the same
    nonzero value, so two touching classes are two components where
    :func:`label` sees one. ``labels`` is numbered as :func:`label` numbers
    (0 for background, 1..n in raster order of each component's first
    pixel, z then y then x), so it equals cc3d's output after renumbering in
    that order; ``classes`` is the ``(n,)`` array of each component's value
    (``classes[i]`` for label ``i + 1``), in the map's dtype, and ``n`` is
    ``len(classes)``.

    Parameters
    ----------
    image:
        A 2-D ``(height, width)`` or 3-D ``(depth, height, width)`` array of
        integers (uint8, uint16, int32, any integer type, or bool); zero is
        background. Floats are refused: a float is not a class. CuPy arrays
        and CUDA torch tensors are labeled on their GPU, on the current
        stream, and the results are of the same framework on the same
        device; host arrays are labeled on the CPU.
    connectivity:
        As :func:`label`: 4 or 8 of an image, 6, 18 or 26 of a volume;
        ``None`` is the fullest (8, 26).
    batch:
        ``True`` for a batch of class maps of one size, ``(n_images, height,
        width)`` or ``(n_images, 1, height, width)``, each labeled apart in
        an image's connectivity and numbered 1..n_i; the result is then
        ``(labels, counts, classes)``: ``counts`` the ``(n_images,)``
        component counts and ``classes`` the classes of every image one
        after the other (image ``i``'s are ``classes[sum(counts[:i]):][:counts[i]]``).
    dtype:
        The labels' dtype, as :func:`label` takes it.

    Raises
    ------
    ValueError
        For a float map, an array that is neither 2-D nor 3-D (nor a batch
        of such images with ``batch=True``), or a connectivity for the other
        number of dimensions.
    """
    if image is None:
        _HostInput.of(image)  # names None as such
    if batch:
        connectivity = _batch_connectivity(connectivity)
        shape = _batch_input_shape(image)
        images, height, width = _batch_shape(shape)
        as_map = _as_batch(image, (images, height, width))
    else:
        connectivity = _connectivity(connectivity, volumes=True)
        shape = tuple(getattr(image, "shape", np.shape(image)))
        _check_shape(shape, True)
        connectivity = _for_dimensions(connectivity, len(shape))
        as_map = image if _is_device(image) or _is_torch(image) else np.asarray(image)
        if len(shape) == 2:
            as_map = as_map.reshape((1,) + shape)
    if _is_device(as_map):
        labels, counts, classes = _label_classes_device(as_map, connectivity, batch)
    else:
        labels, counts, classes = _label_classes_host(as_map, connectivity, batch)
    labels = labels.reshape(shape)
    n = counts if batch else len(classes)
    if dtype is not None:
        labels = _cast_labels(labels, n, dtype)
    return (labels, counts, classes) if batch else (labels, classes)


def _check_class_kind(kind: str, dtype: Any) -> None:
    if kind == "f":
        raise ValueError(
            f"a class map holds integers; {dtype} values are not classes (cast the map to an "
            f"integer type, e.g. .astype('int32'))"
        )
    if kind not in "biu":
        raise ValueError(f"unsupported class map dtype {dtype}: use bool or integers")


def _label_classes_host(array: Any, connectivity: int, batch: bool) -> Tuple[Any, Any, Any]:
    """:func:`label_classes` of a host ``(depth, height, width)`` map (a batch's images with
    ``batch``): labels, counts and classes, numpy (torch for a CPU tensor)."""
    to_caller: Callable[[np.ndarray], Any] = lambda a: a  # noqa: E731
    if _is_torch(array):
        import torch

        to_caller = torch.from_numpy
        array = array.detach()
        if array.dtype.is_floating_point:
            _check_class_kind("f", array.dtype)
        array = array.numpy()
    _check_class_kind(array.dtype.kind, array.dtype)
    values = np.ascontiguousarray(array)
    if values.dtype.kind == "b":
        values = values.view(np.uint8)
    depth, height, width = values.shape
    labels = np.empty(values.shape, np.uint32)
    classes, counts = _ccl.label_classes_host(
        (values.__array_interface__["data"][0], depth, height, width, values.dtype.kind,
         values.dtype.itemsize),
        labels.__array_interface__["data"][0], connectivity, batch,
    )  # fmt: skip
    classes = np.asarray(classes).astype(array.dtype)
    return to_caller(labels), to_caller(np.asarray(counts)), to_caller(classes)


def _label_classes_device(array: Any, connectivity: int, batch: bool) -> Tuple[Any, Any, Any]:
    """:func:`label_classes` of a ``(depth, height, width)`` map in GPU memory."""
    if _is_torch(array):
        import torch

        if array.dtype.is_floating_point or array.dtype.is_complex:
            _check_class_kind("f", array.dtype)
        array = array.detach().contiguous()
        if array.dtype == torch.bool:
            array = array.view(torch.uint8)
    else:
        import cupy

        if not _is_cupy(array):
            array = cupy.asarray(array) if hasattr(array, "__cuda_array_interface__") else (
                cupy.from_dlpack(array))  # fmt: skip
        _check_class_kind(array.dtype.kind, array.dtype)
        with cupy.cuda.Device(array.device.id):
            array = cupy.ascontiguousarray(array)
            if array.dtype.kind == "b":
                array = array.view(cupy.uint8)
    device = _DeviceInput.of(array, volumes=True)
    depth, height, width = (int(n) for n in array.shape)
    labels = device.empty((depth, height, width), device.label_dtype)
    counts = device.empty((depth,), "uint32") if batch else None
    dtype_name = str(array.dtype).replace("torch.", "")
    classes = [device.empty((0,), dtype_name)]
    if depth * height * width == 0:
        if counts is not None and depth:
            counts[...] = 0
        return labels, counts, classes[0]

    def allocate(n: int) -> int:
        classes[0] = device.empty((n,), dtype_name)
        return device.address_of(classes[0]) if n else 0

    _ccl.label_classes_device(
        device.ordinal, device.stream, device.args, depth, height, device.address_of(labels),
        device.address_of(counts) if counts is not None else None, connectivity, allocate,
    )  # fmt: skip
    return labels, counts, classes[0]


def keep(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    batch: bool = False,
    classes: bool = False,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: Optional[Tuple[int, ...]] = None,
    max_extent: Optional[Tuple[int, ...]] = None,
) -> Any:
    """The mask of the components that a clean-up keeps: a bool array of ``image``'s shape,
    in its framework and on its device.

    ``ccl.keep(masks, batch=True, largest=1)`` is MONAI's
    ``KeepLargestConnectedComponent`` of a batch; ``ccl.keep(image,
    min_size=50)`` is scikit-image's ``remove_small_objects``. The
    parameters are :func:`label`'s; the labels are made and filtered on
    the image's device and only the mask is returned.

    ``classes=True`` takes ``image`` as a class map: the components are
    those of :func:`label_classes`, neighbours of the same nonzero value
    (each class apart, as cc3d's ``dust`` and ``largest_k`` see a map by
    default), where without it every nonzero value is one foreground.
    Integer maps only (a float map is a ``ValueError``), and ``algorithm``
    must be ``None``: the class labeling has its own labeler.
    """
    cleanup = _Cleanup.of(min_size, max_size, largest, min_extent, max_extent)
    if classes:
        labels, n = _label_each_class(image, connectivity, algorithm, batch)
        algorithm = None
    elif batch:
        filtered = _label_batch_filtered(image, connectivity, algorithm, cleanup, mask=True)
        if filtered is not None:
            return filtered[0]
        labels, n = _label_batch(image, connectivity, algorithm, None)
    else:
        filtered = _label_filtered(image, connectivity, algorithm, None, cleanup, mask=True)
        if filtered is not None:
            return filtered[0]
        labels, n = _label(image, connectivity, algorithm, None, volumes=True)
    if cleanup is None:
        return _signed_view(labels) != 0
    return cleanup.mask(labels, n, batch, connectivity, algorithm)


def _label_each_class(
    image: Any, connectivity: Any, algorithm: Any, batch: bool
) -> Tuple[Any, Any]:
    """``(labels, n)`` of the components of a class map, as :func:`label` returns them (of a
    batch, ``n`` the counts), for the clean-up's ``classes=True``."""
    if algorithm is not None:
        raise ValueError(
            f"classes=True labels each class apart as ccl.label_classes does, which takes no "
            f"algorithm; algorithm={algorithm!r} names a variant of the binary labeling"
        )
    if batch:
        labels, counts, _ = label_classes(image, connectivity, batch=True)
        return labels, counts
    labels, classes = label_classes(image, connectivity)
    return labels, len(classes)


def dust(
    image: Any,
    threshold: Union[int, float, Tuple[Any, Any]],
    connectivity: Optional[int] = None,
    *,
    invert: bool = False,
    algorithm: Optional[str] = None,
    batch: bool = False,
    classes: bool = False,
) -> Any:
    """cc3d's ``dust``: ``image`` without its components smaller than ``threshold`` pixels
    (voxels), in its dtype, framework and device.

    ``threshold`` is a size, or a ``(lower, upper)`` pair whose range
    ``[lower, upper)`` is kept; ``invert=True`` keeps what is removed
    otherwise (the components smaller than ``threshold``; those outside
    the range). The pixels of the removed components become 0, the others
    keep their values. By default nonzero is foreground, as everywhere in
    ccl: the classes of a class map are one foreground, as cc3d's
    ``binary_image=True`` sees them. With ``classes=True`` the components
    are those of each class apart (:func:`label_classes`), as cc3d's
    ``dust`` sees a class map by default: ``ccl.dust(class_map, t, c,
    classes=True)`` equals ``cc3d.dust(class_map, t, connectivity=c)``
    (integer maps only). :func:`keep` gives the mask alone.
    """
    options = dict(algorithm=algorithm, batch=batch, classes=classes)
    if isinstance(threshold, (tuple, list)):
        if len(threshold) != 2:
            raise ValueError(f"threshold takes a size or (lower, upper), not {threshold!r}")
        lower, upper = (_ceil_size(t, "threshold") for t in threshold)
        inside = (
            keep(image, connectivity, min_size=lower, max_size=upper - 1, **options)
            if upper > lower
            else _nothing_kept(image, connectivity, options)
        )
        kept = _foreground(image) & ~inside if invert else inside
    else:
        size = _ceil_size(threshold, "threshold")
        if not invert:
            kept = keep(image, connectivity, min_size=size, **options)
        elif size == 0:
            kept = _nothing_kept(image, connectivity, options)
        else:
            kept = keep(image, connectivity, max_size=size - 1, **options)
    return _masked(image, kept)


def _nothing_kept(image: Any, connectivity: Any, options: Dict[str, Any]) -> Any:
    """The all-false mask of ``image`` for a range that keeps nothing; of a class map, through
    :func:`keep`, so that what :func:`label_classes` refuses (floats) is refused here too."""
    if options["classes"]:
        return keep(image, connectivity, largest=0, **options)
    return _foreground(image) & False


def largest_k(
    image: Any,
    k: int,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    batch: bool = False,
    classes: bool = False,
    return_N: bool = False,
    dtype: Any = None,
) -> Any:
    """cc3d's ``largest_k``: the labels 1..k of the ``k`` largest components of ``image``,
    ``label(image, connectivity, largest=k)``; with ``return_N``, ``(labels, k)``.

    The kept components are numbered in raster order of their first pixels
    and, among equal sizes, the first in that order are kept. cc3d keeps the
    same pixels wherever no equal sizes straddle the cut, and returns them
    otherwise: a bool mask for ``k=1`` (whose tie rule is this one); for a
    larger ``k``, labels numbered by size, the smallest first (in order of
    appearance where fastremap is installed), its choice among equal sizes
    at the cut ``numpy.argpartition``'s; all its labels where ``k`` is at
    least the number of components. With ``batch=True``, each image apart,
    and ``N`` the counts.

    By default every nonzero value is one foreground (cc3d's
    ``binary_image=True``). ``classes=True`` takes ``image`` as a class map
    whose components are those of each class apart (:func:`label_classes`),
    as cc3d's ``largest_k`` sees it by default: the kept pixels are cc3d's,
    and their classes ``image[labels != 0]``. See :func:`keep`.
    """
    if not classes:
        labels, n = label(image, connectivity, algorithm=algorithm, batch=batch, largest=k,
                          dtype=dtype)  # fmt: skip
        return (labels, n) if return_N else labels
    cleanup = _Cleanup.of(None, None, k, None, None)
    labels, n = _label_each_class(image, connectivity, algorithm, batch)
    n = cleanup.apply(labels, n, batch, connectivity, None)
    if dtype is not None:
        labels = _cast_labels(labels, n, dtype)
    return (labels, n) if return_N else labels


def _batch_shape(shape: Tuple[int, ...]) -> Tuple[int, int, int]:
    """The ``(n_images, height, width)`` of a batch of shape ``(n, h, w)`` or ``(n, 1, h, w)``."""
    if len(shape) == 3 or (len(shape) == 4 and shape[1] == 1):
        return (int(shape[0]), int(shape[-2]), int(shape[-1]))
    raise ValueError(
        f"batch=True takes images as (n_images, height, width) or (n_images, 1, height, width), "
        f"got shape {tuple(shape)}"
    )


def _batch_input_shape(image: Any) -> Tuple[int, ...]:
    """The shape of a batch: an array's, or a sequence's of images of one size."""
    if isinstance(image, (list, tuple)):
        shapes = {tuple(getattr(i, "shape", np.shape(i))) for i in image}
        if len(shapes) > 1:
            raise ValueError(
                f"batch=True takes images of one size; got shapes {sorted(shapes)}"
            )
    return tuple(getattr(image, "shape", np.shape(image)))


def _as_batch(image: Any, shape: Tuple[int, int, int]) -> Any:
    """``image`` (a batch, in its framework) reshaped to ``(n_images, height, width)``."""
    if _is_torch(image) or _is_device(image):
        return image.reshape(shape)
    return np.reshape(np.asarray(image), shape)


def _batch_connectivity(connectivity: Any) -> int:
    connectivity = 8 if connectivity is None else _connectivity(connectivity, volumes=True)
    if connectivity in _VOLUME_CONNECTIVITIES:
        raise ValueError(
            f"connectivity {connectivity} is for volumes; the images of a batch take 4 or 8"
        )
    return connectivity


def _label_batch(image: Any, connectivity: Any, algorithm: Any, out: Any) -> Tuple[Any, Any]:
    """:func:`label` with ``batch=True``."""
    connectivity = _batch_connectivity(connectivity)
    algorithm = _algorithm(algorithm)
    if image is None:
        _HostInput.of(image)  # names None as such
    shape = _batch_input_shape(image)
    images, height, width = _batch_shape(shape)
    if _is_device(image):
        if out is not None:
            raise ValueError("out= takes the labels of a host (numpy) image, not of a GPU array")
        return _label_device_batch(image, shape, connectivity, algorithm, None, False)
    host = _HostInput.of(_as_batch(image, (images, height, width)), volumes=True)
    if out is not None:
        _check_out(out, host.data)
        labels = out
    else:
        labels = np.empty(host.data.shape, np.uint32)
    if host.empty:
        return host.result(labels.reshape(shape)), host.result(np.zeros(images, np.uint32))
    counts = _ccl.label_batch_host(
        host.args, labels.__array_interface__["data"][0], connectivity, algorithm
    )
    return (
        labels if out is not None else host.result(labels.reshape(shape)),
        host.result(np.asarray(counts)),
    )


def _label_device_batch(
    image: Any,
    shape: Tuple[int, ...],
    connectivity: int,
    algorithm: Any,
    cleanup: Optional["_Cleanup"],
    mask: bool,
) -> Tuple[Any, Any]:
    """A GPU batch of ``shape`` labeled in one call: ``(labels, counts)``; with ``cleanup``,
    each image's kept components and kept counts, and with ``mask`` too the bool mask of the
    kept pixels in place of the labels (a variant whose last pass filters writes either
    once)."""
    images, height, width = _batch_shape(shape)
    device = _DeviceInput.of(_as_batch(image, (images, height, width)), volumes=True)
    labels = device.empty((images, height, width), device.label_dtype)
    counts = device.empty((images,), "uint32")
    kept = device.empty((images, height, width), "bool") if mask else None
    if device.empty_input:
        if images:
            counts[...] = 0
    else:
        _ccl.label_batch_device(
            device.ordinal, device.stream, device.args, images, height,
            device.address_of(labels), device.address_of(counts), connectivity, algorithm,
            None if cleanup is None else cleanup._native(2),
            None if kept is None else device.address_of(kept),
        )  # fmt: skip
    result = kept if mask else labels
    return device.result(result.reshape(shape)), device.result(counts)


def _label_batch_filtered(
    image: Any, connectivity: Any, algorithm: Any, cleanup: Optional["_Cleanup"], mask: bool
) -> Optional[Tuple[Any, Any]]:
    """:func:`label` (or, with ``mask``, :func:`keep`) with ``batch=True`` and ``cleanup`` of
    a GPU batch in one call (:func:`_label_device_batch`); ``None`` where this does not apply
    (no clean-up, a host batch)."""
    if cleanup is None or not _is_device(image):
        return None
    connectivity = _batch_connectivity(connectivity)
    shape = _batch_input_shape(image)
    return _label_device_batch(image, shape, connectivity, _algorithm(algorithm), cleanup, mask)


def _label_filtered(
    image: Any,
    connectivity: Any,
    algorithm: Any,
    out: Any,
    cleanup: Optional["_Cleanup"],
    mask: bool = False,
) -> Optional[Tuple[Any, int]]:
    """:func:`label` with ``cleanup`` of a GPU image (2-D) in one call: ``(labels, k)``, the
    labels of the kept components 1..k; with ``mask``, ``(kept, k)``, the bool mask of the
    kept pixels (:func:`keep`'s) in place of the labels. A variant whose last pass filters
    (``flsl``'s) writes either once, from its features by rank; any other labels, then
    filters. ``None`` where this does not apply (no clean-up, ``out=``, a host array, a
    volume, an empty image)."""
    if cleanup is None or out is not None or not _is_device(image):
        return None
    if len(getattr(image, "shape", ())) != 2:
        return None
    connectivity = _for_dimensions(_connectivity(connectivity, True), 2)
    device = _DeviceInput.of(image, True)
    if device.height * device.width == 0:
        return None
    labels = device.empty((device.height, device.width), device.label_dtype)
    kept = device.empty((device.height, device.width), "bool") if mask else None
    k = _ccl.label_device(
        device.ordinal, device.stream, device.args, device.address_of(labels), connectivity,
        _algorithm(algorithm), cleanup._native(2),
        None if kept is None else device.address_of(kept),
    )  # fmt: skip
    return (device.result(kept) if mask else device.result(labels)), k


def _label(
    image: Any, connectivity: Any, algorithm: Any, out: Any, volumes: bool
) -> Tuple[Any, int]:
    """:func:`label`, of images and volumes or, where ``volumes`` is false, of images only."""
    connectivity = _connectivity(connectivity, volumes)
    algorithm = _algorithm(algorithm)
    device = _DeviceInput.of(image, volumes)
    if device is not None:
        connectivity = _for_dimensions(connectivity, device.ndim)
        if out is not None:
            raise ValueError("out= takes the labels of a host (numpy) image, not of a GPU array")
        if device.ndim == 3:
            labels = device.empty(device.shape, device.label_dtype)
            if device.empty_input:
                return device.result(labels), 0
            n = _ccl.label_volume_device(
                device.ordinal,
                device.stream,
                device.args,
                device.depth,
                device.height,
                device.address_of(labels),
                connectivity,
                algorithm,
            )
            return device.result(labels), n
        labels = device.empty((device.height, device.width), device.label_dtype)
        if device.height * device.width == 0:
            return device.result(labels), 0
        n = _ccl.label_device(
            device.ordinal,
            device.stream,
            device.args,
            device.address_of(labels),
            connectivity,
            algorithm,
        )
        return device.result(labels), n
    host = _HostInput.of(image, volumes)
    connectivity = _for_dimensions(connectivity, host.ndim)
    if out is not None:
        _check_out(out, host.data)
        if host.empty:
            return out, 0
        label_into = _ccl.label_host_into if host.ndim == 2 else _ccl.label_volume_host_into
        return out, label_into(
            host.args, out.__array_interface__["data"][0], connectivity, algorithm
        )
    if host.empty:
        return host.result(np.zeros(host.data.shape, np.uint32)), 0
    label_host = _ccl.label_host if host.ndim == 2 else _ccl.label_volume_host
    labels, n = label_host(host.args, connectivity, algorithm)
    return host.result(np.asarray(labels)), n


# The most pixels 32-bit labels number (ccl_core::MAX_PIXELS).
_MAX_LABEL_PIXELS = 2**32 - 2


def _past_32_bit_labels(image: Any) -> bool:
    """Whether ``image`` is a host array of more pixels than 32-bit labels number."""
    shape = getattr(image, "shape", None)
    return shape is not None and not _is_device(image) and math.prod(shape) > _MAX_LABEL_PIXELS


# From this many pixels on, a host array labeled on a GPU goes through the strip labeler even
# where it fits the GPU whole: its pinned transfers, overlapped on four streams, beat one upload
# and a copy of the labels back through pageable memory 5-10 times from 4096^2 (8192^2: 25 against
# 241 ms; 512^3: 70 against 619 ms), and are level at 2048^2
# (bench/2026-11-25-h200-scale-2/host-vs-strips.txt). The labels are the same.
_HOST_STRIP_PIXELS = 1 << 23


def _strips_are_faster(image: Any, connectivity: Any, algorithm: Any, out: Any) -> bool:
    """Whether :func:`label` of ``image`` runs in strips though not asked to: a large host array
    labeled on a GPU, into labels the strips write (uint32 or uint64)."""
    shape = getattr(image, "shape", None)
    if _is_device(image) or shape is None or len(shape) not in (2, 3):
        return False
    if math.prod(shape) < _HOST_STRIP_PIXELS:
        return False
    if out is not None and getattr(out, "dtype", None) not in (np.uint32, np.uint64):
        return False
    connectivity = _for_dimensions(_connectivity(connectivity, volumes=True), len(shape))
    return _ccl.label_backend(connectivity, _algorithm(algorithm)) == "cuda"


def _strip_input(
    image: Any, connectivity: Any, algorithm: Any, max_gpu_memory: Any, devices: Any
) -> Tuple["_HostInput", np.ndarray, int, Optional[str], Optional[int], Optional[List[int]]]:
    """The arguments of a call in strips (``ccl_scale``), checked: ``(host, data, connectivity,
    algorithm, max_memory, devices)``, ``data`` the image's packed bytes."""
    if _is_device(image):
        raise ValueError(
            "max_gpu_memory= and devices= take host (numpy) arrays, streamed through the GPU "
            "in strips; a GPU array is labeled and analyzed where it lies"
        )
    connectivity = _connectivity(connectivity, volumes=True)
    algorithm = _algorithm(algorithm)
    max_memory = None if max_gpu_memory is None else _byte_size(max_gpu_memory)
    if devices is not None:
        if isinstance(devices, (int, np.integer)) or not hasattr(devices, "__iter__"):
            raise ValueError(f"devices= takes a list of GPU ordinals, not {devices!r}")
        devices = [_count(d, "devices") for d in devices]
        if not devices:
            raise ValueError("devices= names no GPU")
    host = _HostInput.of(image, volumes=True)
    connectivity = _for_dimensions(connectivity, host.ndim)
    # Strips are read packed: one byte a pixel, rows and slices back to back.
    data = np.ascontiguousarray(host.data)
    return host, data, connectivity, algorithm, max_memory, devices


def _wants_strips(image: Any, max_gpu_memory: Any, devices: Any) -> bool:
    """Whether a call runs in strips: asked for, or a host array past 32-bit labels."""
    return max_gpu_memory is not None or devices is not None or _past_32_bit_labels(image)


def _label_strips(
    image: Any, connectivity: Any, algorithm: Any, out: Any, max_gpu_memory: Any, devices: Any
) -> Tuple[Any, int]:
    """:func:`label` of a host image or volume in strips (``ccl_scale``)."""
    host, data, connectivity, algorithm, max_memory, devices = _strip_input(
        image, connectivity, algorithm, max_gpu_memory, devices
    )
    wide = data.size > _MAX_LABEL_PIXELS
    dtype = np.dtype(np.uint64 if wide else np.uint32)
    if out is None:
        out = np.empty(data.shape, dtype)
    else:
        if not isinstance(out, np.ndarray) or out.shape != data.shape:
            raise ValueError(f"out must be a numpy array of shape {data.shape}")
        if out.dtype not in (np.dtype(np.uint32), np.dtype(np.uint64)) or (
            wide and out.dtype != np.uint64
        ):
            raise ValueError(
                f"out must have dtype {'uint64' if wide else 'uint32 or uint64'}, not {out.dtype}"
            )
        if not out.flags.c_contiguous or not out.flags.writeable or not out.flags.aligned:
            raise ValueError("out must be C-contiguous, aligned and writable")
        if np.shares_memory(out, data):
            raise ValueError("out shares memory with the image")
    if data.size == 0:
        out[...] = 0
        return host.result(out), 0
    n, _strips = _ccl.label_strips_host(
        data.__array_interface__["data"][0],
        list(data.shape),
        out.__array_interface__["data"][0],
        out.dtype == np.uint64,
        connectivity,
        algorithm,
        max_memory,
        devices,
    )
    return host.result(out), n


def _analyze_strips(
    image: Any,
    connectivity: Any,
    algorithm: Any,
    max_gpu_memory: Any,
    devices: Any,
    cleanup: Optional["_Cleanup"],
) -> Union[Features, VolumeFeatures]:
    """:func:`analyze` of a host image or volume in strips: the features merged per component,
    areas uint64 past 2**32 - 2 pixels; with ``cleanup``, of the components it keeps."""
    host, data, connectivity, algorithm, max_memory, devices = _strip_input(
        image, connectivity, algorithm, max_gpu_memory, devices
    )
    axes = data.ndim
    if data.size == 0:
        areas = np.zeros(0, np.uint32)
        mins = maxs = np.zeros((0, 3), np.uint32)
        sums = np.zeros((0, 3), np.uint64)
        centroids = np.zeros((0, axes), np.float64)
    else:
        # Areas uint32 where the array has at most 2**32 - 2 pixels; the centroids (x, y[, z])
        # are the exact sums over the areas, computed with the columns on all host threads.
        areas, mins, maxs, sums, centroids = (
            np.asarray(a)
            for a in _ccl.analyze_strips_host(
                data.__array_interface__["data"][0], list(data.shape), connectivity, algorithm,
                max_memory, devices,
            )
        )  # fmt: skip
    if cleanup is not None:
        # The features are whole once merged: kept as those of the whole array would be.
        rows = cleanup.kept(areas, [mins[:, a] for a in range(axes)],
                            [maxs[:, a] for a in range(axes)])  # fmt: skip
        areas, mins, maxs, sums, centroids = (
            a[rows] for a in (areas, mins, maxs, sums, centroids)
        )
    if axes == 2:
        return Features(
            areas, mins[:, 0], mins[:, 1], maxs[:, 0], maxs[:, 1], sums[:, 0], sums[:, 1],
            centroids,
        )  # fmt: skip
    return VolumeFeatures(
        areas, mins[:, 0], mins[:, 1], mins[:, 2], maxs[:, 0], maxs[:, 1], maxs[:, 2],
        sums[:, 0], sums[:, 1], sums[:, 2], centroids,
    )  # fmt: skip


def _byte_size(value: Any) -> int:
    """Bytes from an int or a string such as ``"8GiB"`` (parsed as the CLI's --max-gpu-memory)."""
    if isinstance(value, str):
        try:
            size = _ccl.parse_size(value)
        except ValueError as error:
            raise ValueError(f"max_gpu_memory: {error}") from None
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        size = int(value)
    else:
        raise ValueError(f"max_gpu_memory takes bytes or a string such as '8GiB', not {value!r}")
    if size < 1:
        raise ValueError(f"max_gpu_memory must be at least one byte, not {value!r}")
    return size


def connected_components(
    image: Any, connectivity: int = 8, ltype: int = CV_32S, *, algorithm: Optional[str] = None
) -> Tuple[int, Any]:
    """OpenCV's ``connectedComponents``: ``(n, labels)``, ``n`` counting the background.

    ``cv2.connectedComponents(image, connectivity, ltype)`` with the same
    arguments, positional or by name; ``labels`` as
    :func:`connected_components_with_stats` returns them.
    """
    _ltype(ltype)
    labels, components = _label(image, connectivity, algorithm, None, volumes=False)
    n = components + 1
    return n, _as_ltype(_as_int32(labels), int(ltype), n)


def connected_components_with_stats_with_algorithm(
    image: Any,
    connectivity: int,
    ltype: int,
    ccltype: int,
    *,
    algorithm: Optional[str] = None,
) -> Tuple[int, Any, Any, Any]:
    """OpenCV's ``connectedComponentsWithStatsWithAlgorithm``.

    ccl numbers components in raster order of their first pixel, as
    ``cv2.CCL_WU`` and ``cv2.CCL_SAUF`` do in both connectivities, and every
    ``ccltype`` does in 4-connectivity: those give OpenCV's own output. In
    8-connectivity ``CCL_DEFAULT``, ``CCL_GRANA``, ``CCL_BOLELLI``,
    ``CCL_BBDT`` and ``CCL_SPAGHETTI`` number the same components in
    another order, which ccl does not reproduce: they raise ``ValueError``
    (pass ``cv2.CCL_WU`` for the same partition in raster order). Which of
    ccl's variants runs is ``algorithm=``'s choice, as everywhere.
    """
    connectivity = _connectivity(connectivity)
    if isinstance(ccltype, (bool, np.bool_)) or ccltype not in _CCLTYPES:
        raise ValueError(f"ccltype must be one of OpenCV's cv2.CCL_* values, not {ccltype!r}")
    name, raster_order = _CCLTYPES[int(ccltype)]
    if connectivity == 8 and not raster_order:
        raise ValueError(
            f"ccl numbers components in raster order of their first pixel, as cv2.CCL_WU and "
            f"cv2.CCL_SAUF do; OpenCV's {name} numbers 8-connected components in another "
            f"order. Pass cv2.CCL_WU for the same components in raster order"
        )
    return connected_components_with_stats(image, connectivity, ltype, algorithm=algorithm)


def connected_components_with_stats(
    image: Any, connectivity: int = 8, ltype: int = CV_32S, *, algorithm: Optional[str] = None
) -> Tuple[int, Any, Any, Any]:
    """OpenCV's ``connectedComponentsWithStats``: ``(n, labels, stats, centroids)``.

    The arguments, layout and dtypes are OpenCV's, so that replacing
    ``cv2.connectedComponentsWithStats(image, connectivity, ltype)`` (its
    arguments positional or by name) is a rename; ccl's own option,
    ``algorithm``, is a keyword:

    - ``n`` counts the labels including the background (components + 1);
    - ``labels``: the image's shape, 0 for background; int32 for ``ltype``
      ``cv2.CV_32S`` (the default), uint16 for ``cv2.CV_16U`` (an image
      with more than 65535 components raises ``ValueError`` there);
    - ``stats``: int32 ``(n, 5)``, columns left, top, width, height, area
      (``cv2.CC_STAT_LEFT`` … ``cv2.CC_STAT_AREA``); row 0 is the background;
    - ``centroids``: float64 ``(n, 2)``, x then y.

    Components are numbered in raster order of their first pixel, as
    OpenCV's ``CCL_WU`` algorithm numbers them (and as scipy does).
    OpenCV's default 8-connectivity algorithm (Spaghetti / BBDT) numbers
    differently: its labels are the same partition in another order. Where
    the image has no background pixel, row 0 is what OpenCV 5 writes there,
    ``[-1, 2147483647, 0, 0, 0]``, with a NaN centroid. An image with no
    pixels gives ``n`` = 1 and that row alone (where OpenCV crashes).

    CuPy arrays and CUDA torch tensors stay on their GPU: all four results
    but ``n`` are arrays of the same framework on the same device. See
    :func:`label` for the parameters and errors.
    """
    connectivity = _connectivity(connectivity)
    algorithm = _algorithm(algorithm)
    _ltype(ltype)
    device = _DeviceInput.of(image)
    if device is not None:
        labels = device.empty((device.height, device.width), "int32")
        if device.height * device.width == 0:
            stats, centroids = (device.from_host(a) for a in _no_background_row())
            return 1, device.result(_as_ltype(labels, ltype, 1)), stats, centroids
        outputs: list = []

        def allocate(components: int) -> Tuple[int, int]:
            stats = device.empty((components + 1, 5), "int32")
            centroids = device.empty((components + 1, 2), "float64")
            outputs.extend([stats, centroids])
            return device.address_of(stats), device.address_of(centroids)

        components = _ccl.connected_components_with_stats_device(
            device.ordinal,
            device.stream,
            device.args,
            device.address_of(labels),
            connectivity,
            allocate,
            algorithm,
        )
        stats, centroids = outputs
        n = components + 1
        return n, device.result(_as_ltype(labels, ltype, n)), stats, centroids
    host = _HostInput.of(image)
    if host.empty:
        stats, centroids = _no_background_row()
        labels = _as_ltype(np.zeros(host.data.shape, np.int32), ltype, 1)
        return 1, host.result(labels), host.result(stats), host.result(centroids)
    n, labels, stats, centroids = _ccl.connected_components_with_stats_host(
        host.args, connectivity, algorithm
    )
    return (
        n,
        host.result(_as_ltype(np.asarray(labels), ltype, n)),
        host.result(np.asarray(stats)),
        host.result(np.asarray(centroids)),
    )


def analyze(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    batch: bool = False,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: Optional[Tuple[int, ...]] = None,
    max_extent: Optional[Tuple[int, ...]] = None,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Union[Features, VolumeFeatures, List[Features]]:
    """The features of every component, without a label image: a :class:`Features` (of a
    volume, a :class:`VolumeFeatures`).

    Area, inclusive bounding box (x_min, y_min, x_max, y_max), coordinate
    sums (sum_x, sum_y) and centroids of each component, in raster order of
    the components' first pixels (entry ``i`` is label ``i + 1`` of
    :func:`label`). CuPy arrays and CUDA torch tensors stay on their GPU.

    Of a volume ``(depth, height, width)``, a :class:`VolumeFeatures`: the
    same extended with z (x_min, y_min, z_min, x_max, y_max, z_max; sum_x,
    sum_y, sum_z; ``(N, 3)`` centroids x, y, z), x being the last axis and
    z the first. See :func:`label` for the parameters and errors.

    With ``batch=True``, ``image`` is a batch of images as :func:`label`
    takes it, and the result a list of :class:`Features`, entry ``i`` those
    of image ``i`` (its components in its own raster order, their y within
    the image), on the input's device: a GPU batch is analyzed in one call.

    ``min_size``, ``max_size``, ``largest``, ``min_extent`` and
    ``max_extent`` are :func:`label`'s clean-up: the features are then those
    of the kept components only, entry ``i`` being label ``i + 1`` of
    ``label(image, connectivity, <the same keywords>)`` (the ranges, then
    the ``largest`` by area, the first in raster order among equal areas;
    each image of a batch apart). They are chosen from the features
    themselves where the analysis leaves them: no label image is made,
    and a GPU image's features are filtered on its device, in its
    framework, without a copy to the host.

    ``max_gpu_memory`` and ``devices`` analyze a host (numpy) array larger
    than the GPU in strips, as :func:`label` labels it: the features of
    each strip's components merged per component (an array past 2**32 - 2
    pixels always is, and its areas are uint64), then cleaned up as those of
    the whole array.
    """
    cleanup = _Cleanup.of(min_size, max_size, largest, min_extent, max_extent)
    if _wants_strips(image, max_gpu_memory, devices):
        if batch:
            raise ValueError("batch= analyzes images of a batch apart; strips stream one array")
        return _analyze_strips(image, connectivity, algorithm, max_gpu_memory, devices, cleanup)
    if batch:
        return _analyze_batch(image, connectivity, algorithm, cleanup)
    connectivity = _connectivity(connectivity, volumes=True)
    algorithm = _algorithm(algorithm)
    device = _DeviceInput.of(image, volumes=True)
    if device is not None:
        connectivity = _for_dimensions(connectivity, device.ndim)
        if device.ndim == 3:
            return _analyze_device_volume(device, connectivity, algorithm, cleanup)
    if device is not None and device.height * device.width == 0:
        bounds, sums, centroids = (
            device.empty(shape, dtype)
            for shape, dtype in [((0, 5), "uint32"), ((0, 2), "uint64"), ((0, 2), "float64")]
        )
    elif device is not None:
        outputs: list = []

        def allocate(components: int) -> Tuple[int, int, int]:
            bounds = device.empty((components, 5), "uint32")
            sums = device.empty((components, 2), "uint64")
            centroids = device.empty((components, 2), "float64")
            outputs.extend([bounds, sums, centroids])
            return tuple(device.address_of(a) for a in outputs)

        _ccl.analyze_device(
            device.ordinal, device.stream, device.args, connectivity, allocate, algorithm
        )
        bounds, sums, centroids = outputs
    else:
        host = _HostInput.of(image, volumes=True)
        connectivity = _for_dimensions(connectivity, host.ndim)
        if host.ndim == 3:
            return _analyze_volume(host, connectivity, algorithm, cleanup)
        results = (
            [np.zeros((0, 5), np.uint32), np.zeros((0, 2), np.uint64), np.zeros((0, 2))]
            if host.empty
            else _ccl.analyze_host(host.args, connectivity, algorithm)
        )
        rows = _kept_rows(cleanup, *(np.asarray(a) for a in results))
        return _features_of(*(host.result(a) for a in rows))
    # A GPU's features are filtered on the GPU, where they lie.
    return _features_of(*_kept_rows(cleanup, bounds, sums, centroids))


def _kept_rows(cleanup: Optional["_Cleanup"], bounds: Any, sums: Any, centroids: Any) -> list:
    """The rows of :func:`analyze`'s results (numpy, CuPy or torch; bounds of 5 columns, area
    and the minima and maxima of x and y, or of 7 with z) that ``cleanup`` keeps, gathered
    where they lie; all of them without one."""
    if cleanup is None:
        return [bounds, sums, centroids]
    axes = int(sums.shape[1])
    rows = cleanup.kept(bounds[:, 0], [bounds[:, 1 + a] for a in range(axes)],
                        [bounds[:, 1 + axes + a] for a in range(axes)])  # fmt: skip
    return [_take(a, rows) for a in (bounds, sums, centroids)]


def _features_of(bounds: Any, sums: Any, centroids: Any) -> Union[Features, VolumeFeatures]:
    """:class:`Features` (2 axes) or :class:`VolumeFeatures` (3) of the rows of
    :func:`analyze`'s results, their columns views of them."""
    if int(sums.shape[1]) == 2:
        return Features(
            bounds[:, 0], bounds[:, 1], bounds[:, 2], bounds[:, 3], bounds[:, 4],
            sums[:, 0], sums[:, 1], centroids,
        )  # fmt: skip
    return VolumeFeatures(
        bounds[:, 0], bounds[:, 1], bounds[:, 2], bounds[:, 3], bounds[:, 4], bounds[:, 5],
        bounds[:, 6], sums[:, 0], sums[:, 1], sums[:, 2], centroids,
    )  # fmt: skip


def _analyze_batch(
    image: Any, connectivity: Any, algorithm: Any, cleanup: Optional["_Cleanup"]
) -> List[Features]:
    """:func:`analyze` with ``batch=True``: the features of each image, of what ``cleanup``
    keeps of them (chosen on the host, where the native call leaves them, before a GPU
    batch's are brought to its device)."""
    connectivity = _batch_connectivity(connectivity)
    algorithm = _algorithm(algorithm)
    if image is None:
        _HostInput.of(image)  # names None as such
    images, height, width = _batch_shape(_batch_input_shape(image))
    if cleanup is not None:
        cleanup._native(2)  # extents of an image's two axes, checked even without images
    nothing = [np.zeros((0, 5), np.uint32), np.zeros((0, 2), np.uint64), np.zeros((0, 2))]
    if _is_device(image):
        device = _DeviceInput.of(_as_batch(image, (images, height, width)), volumes=True)
        per_image = (
            [nothing] * images
            if device.empty_input
            else _ccl.analyze_batch_device(
                device.ordinal, device.stream, device.args, images, height, connectivity,
                algorithm,
            )
        )  # fmt: skip
        to_caller = device.from_host
    else:
        host = _HostInput.of(_as_batch(image, (images, height, width)), volumes=True)
        per_image = (
            [nothing] * images
            if host.empty
            else _ccl.analyze_batch_host(host.args, connectivity, algorithm)
        )
        to_caller = host.result
    features = []
    for columns in per_image:
        rows = _kept_rows(cleanup, *(np.asarray(a) for a in columns))
        features.append(_features_of(*(to_caller(a) for a in rows)))
    return features


def _analyze_device_volume(
    device: "_DeviceInput",
    connectivity: int,
    algorithm: Optional[str],
    cleanup: Optional["_Cleanup"],
) -> VolumeFeatures:
    """:func:`analyze` of a volume in GPU memory: the variant's analysis there, its records
    (one per component) written as columns on the volume's device, where ``cleanup`` keeps
    its rows."""
    columns = [((7,), "uint32"), ((3,), "uint64"), ((3,), "float64")]
    if device.empty_input:
        outputs = [device.empty((0,) + shape, dtype) for shape, dtype in columns]
    else:
        outputs = []

        def allocate(components: int) -> Tuple[int, int, int]:
            outputs.extend(device.empty((components,) + shape, dtype) for shape, dtype in columns)
            return tuple(device.address_of(a) for a in outputs)

        _ccl.analyze_volume_device(
            device.ordinal, device.stream, device.args, device.depth, device.height,
            connectivity, allocate, algorithm,
        )  # fmt: skip
    return _features_of(*_kept_rows(cleanup, *outputs))


def _analyze_volume(
    host: "_HostInput",
    connectivity: int,
    algorithm: Optional[str],
    cleanup: Optional["_Cleanup"],
) -> VolumeFeatures:
    results = (
        [np.zeros((0, 7), np.uint32), np.zeros((0, 3), np.uint64), np.zeros((0, 3))]
        if host.empty
        else _ccl.analyze_volume_host(host.args, connectivity, algorithm)
    )
    rows = _kept_rows(cleanup, *(np.asarray(a) for a in results))
    return _features_of(*(host.result(a) for a in rows))


def statistics(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    no_slice_conversion: bool = False,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Dict[str, Any]:
    """cc3d's ``statistics`` of the components of ``image``: a dict as ``cc3d.statistics`` returns.

    ``ccl.statistics(image, c)`` equals ``cc3d.statistics(labels)`` of the
    labels of ``image`` (``labels, _ = ccl.label(image, c)``), computed
    from the components' features without a label image. Row (or list
    entry) ``i`` is label ``i``: 0 the background, then the components in
    the order of :func:`label`; every axis in the array's order (z, y, x of
    a volume ``(depth, height, width)``; y, x of an image), as cc3d lays
    them out:

    - ``voxel_counts``: uint32 ``(N + 1,)``, the voxels (pixels) of each
      label; entry 0 counts the background;
    - ``bounding_boxes``: a list of ``N + 1`` tuples of slices, one slice
      per axis (``labels[bounding_boxes[i]]`` crops label ``i``); entry 0
      is the bounding box of the background, or ``None`` where there is no
      background. With ``no_slice_conversion=True``, instead an ``(N + 1,
      2 · ndim)`` array of the inclusive minimum and maximum of each axis
      (z_min, z_max, y_min, y_max, x_min, x_max of a volume), uint16 unless
      a side exceeds 65535 (then uint32), as cc3d's; a background without
      voxels has cc3d's row there (the dtype's maximum for each minimum, 0
      for each maximum);
    - ``centroids``: float64 ``(N + 1, ndim)``, the mean coordinate of each
      label (z, y, x of a volume); NaN for a background without voxels.

    An array with no voxels (a 0 in its shape) gives ``None`` for all
    three, as cc3d does. One difference from cc3d (4.1): where an array
    of more than 65535 voxels, none of whose sides exceeds 65535, has no
    background, cc3d's entry 0 of ``bounding_boxes`` is ``slice(65535,
    1)`` on every axis (its sentinel converted to slices); ccl's is
    ``None``, as cc3d's is for smaller arrays.

    ``max_gpu_memory`` and ``devices`` compute them in strips for a host
    array larger than the GPU, as :func:`label` labels it (an array past
    2**32 - 2 voxels always is; its ``voxel_counts`` are uint64 where one
    exceeds uint32).

    The results are numpy arrays and slices whatever the input; arrays in
    GPU memory raise ``ValueError`` (copy them to the host first). The
    other parameters and errors are :func:`label`'s; ``algorithm`` must be
    a variant that analyzes.
    """
    if _is_device(image):
        raise ValueError(
            "ccl.statistics takes host arrays: its results are numpy arrays and slices, as "
            "cc3d's. Copy the array to the host first (cupy.asnumpy(a), tensor.cpu())"
        )
    if _wants_strips(image, max_gpu_memory, devices):
        host, data, connectivity, algorithm, max_memory, devices = _strip_input(
            image, connectivity, algorithm, max_gpu_memory, devices
        )
        if host.empty:
            return {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
        results = _ccl.statistics_strips_host(
            data.__array_interface__["data"][0], list(data.shape), connectivity, algorithm,
            max_memory, devices,
        )  # fmt: skip
    else:
        connectivity = _connectivity(connectivity, volumes=True)
        algorithm = _algorithm(algorithm)
        host = _HostInput.of(image, volumes=True)
        connectivity = _for_dimensions(connectivity, host.ndim)
        if host.empty:
            return {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
        native = _ccl.statistics_host if host.ndim == 2 else _ccl.statistics_volume_host
        results = native(host.args, connectivity, algorithm)
    counts, bounds, centroids = (np.asarray(a) for a in results)
    # cc3d's box dtype: uint16 unless a side exceeds it.
    wide = any(side > np.iinfo(np.uint16).max for side in host.data.shape)
    bounds = bounds.astype(np.uint32 if wide else np.uint16)
    if counts[0] == 0:
        # No background: cc3d's row of a label without voxels.
        bounds[0, 0::2] = np.iinfo(bounds.dtype).max
        bounds[0, 1::2] = 0
    boxes: Any = bounds
    if not no_slice_conversion:
        boxes = [
            tuple(slice(row[i], row[i + 1] + 1) for i in range(0, len(row), 2))
            for row in bounds.tolist()
        ]
        if counts[0] == 0:
            boxes[0] = None
    return {"voxel_counts": counts, "bounding_boxes": boxes, "centroids": centroids}


# ---------------------------------------------------------------- clean-up

_U32_MAX = 2**32 - 1


class _Cleanup:
    """What a clean-up keeps (ccl_core's ``Filter``), checked, and how it runs on labels."""

    def __init__(self, sizes: Tuple[int, int, Optional[int]], extents: Tuple[Any, Any]):
        self.sizes = sizes  # (min_size, max_size, largest)
        self.extents = extents  # (min_extent, max_extent) in axis order, checked per call

    @staticmethod
    def of(min_size: Any, max_size: Any, largest: Any, min_extent: Any, max_extent: Any):
        if all(v is None for v in (min_size, max_size, largest, min_extent, max_extent)):
            return None
        low = 0 if min_size is None else _count(min_size, "min_size")
        high = _U32_MAX if max_size is None else _count(max_size, "max_size")
        if low > high:
            raise ValueError(f"min_size ({low}) exceeds max_size ({high})")
        k = None if largest is None else _count(largest, "largest")
        return _Cleanup((low, high, k), (min_extent, max_extent))

    def _native(self, ndim: int) -> tuple:
        """The native filter tuple (extents as x, y, z) for arrays of ``ndim`` axes."""
        low, high, k = self.sizes
        bounds = []
        for extent, name, default in zip(self.extents, ("min_extent", "max_extent"),
                                         (0, _U32_MAX)):  # fmt: skip
            if extent is None:
                bounds.append([default] * 3)
                continue
            values = [_count(v, name) for v in _sequence(extent, name)]
            if len(values) != ndim:
                axes = "(depth, height, width)" if ndim == 3 else "(height, width)"
                raise ValueError(
                    f"{name} takes {ndim} extents, one per axis {axes}, not {tuple(values)!r}"
                )
            bounds.append(values[::-1] + [default] * (3 - ndim))
        if any(bounds[0][axis] > bounds[1][axis] for axis in range(3)):
            raise ValueError(f"min_extent {self.extents[0]} exceeds max_extent {self.extents[1]}")
        return (low, high, bounds[0], bounds[1], k)

    def kept(self, area: Any, lows: List[Any], highs: List[Any]) -> Any:
        """The indices of the components kept, given each one's ``area`` and, per axis x, y
        (and z), its smallest and largest coordinate (``lows``, ``highs``; columns of
        :func:`analyze`'s features, of any length): ascending, an index array of their
        framework (numpy, CuPy or torch) on their device, where it is computed.

        The rule of ``ccl_core::Filter``, which :meth:`apply` runs on labels: the area and
        the bounding box's extent along each axis in range, then of those the ``largest``
        by area, among equal areas the first. Entry ``i`` of the result is thus the
        component that :meth:`apply` numbers ``i + 1``."""
        _, _, min_extent, max_extent, k = self._native(len(lows))
        low, high, _ = self.sizes
        with _on_device_of(area):
            area = _int64(area)
            keep = (area >= low) & (area <= high)
            for axis, (first, last) in enumerate(zip(lows, highs)):
                extent = _int64(last) - _int64(first) + 1
                keep &= (extent >= min_extent[axis]) & (extent <= max_extent[axis])
            if k == 0:
                keep = area < 0
            elif k is not None and k < len(area):
                # The k-th largest area in range (or -1 where fewer are in range): every
                # larger one is kept, and of those equal to it the first, up to k in all.
                # Neither a stable sort nor a copy to the host is needed.
                sizes = (area + 1) * keep - 1
                cut = -_sort(-sizes)[k - 1]
                above, at = sizes > cut, sizes == cut
                ranks = _int64(at).cumsum(0)
                keep &= above | (at & (ranks <= k - _int64(above).sum()))
            return _flatnonzero(keep)

    def apply(self, labels: Any, n: Any, batch: bool, connectivity: Any, algorithm: Any) -> Any:
        """Filters ``labels`` (canonical, from :func:`label`) in place; returns the kept count
        (of a batch: ``n``, the counts, rewritten where they lie)."""
        return self._run(labels, n, batch, connectivity, algorithm, None)

    def mask(self, labels: Any, n: Any, batch: bool, connectivity: Any, algorithm: Any) -> Any:
        """The bool mask of what is kept of ``labels`` (which it may overwrite)."""
        if _is_device(labels):
            mask = _empty_like(labels, "bool")
            self._run(labels, n, batch, connectivity, algorithm, mask)
            return mask
        self._run(labels, n, batch, connectivity, algorithm, None)
        return _signed_view(labels) != 0

    def _run(self, labels: Any, n: Any, batch: bool, connectivity: Any, algorithm: Any,
             mask: Any) -> Any:  # fmt: skip
        shape = tuple(labels.shape)
        if batch:
            images, height, width = _batch_shape(shape)
            geometry, ndim = (images, 1, height, width), 2
        elif len(shape) == 2:
            geometry, ndim = (1, 1) + shape, 2
        else:
            geometry, ndim = (1,) + shape, 3
        native = self._native(ndim)
        if 0 in geometry:
            if mask is not None:
                mask[...] = False
            return n
        value = _connectivity(connectivity, volumes=True)
        if value is None:
            value = 26 if ndim == 3 else 8
        if _is_device(labels):
            ordinal, stream = _device_and_stream(labels)
            count, counts = (None, _address_of(n)) if batch else (int(n), None)
            kept = _ccl.filter_device(
                ordinal, stream, _address_of(labels), geometry, count, counts, native,
                None if mask is None else _address_of(mask), value, _algorithm(algorithm),
            )  # fmt: skip
            return n if batch or mask is not None else kept
        host_labels = labels.numpy() if _is_torch(labels) else labels
        counts = np.array(_to_numpy(n) if batch else [n], np.uint32)
        _ccl.filter_host(
            host_labels.__array_interface__["data"][0],
            counts.__array_interface__["data"][0],
            geometry,
            native,
        )
        if not batch:
            return int(counts[0])
        if _is_torch(n):
            n.copy_(_torch_from(n, counts))
        else:
            n[...] = counts
        return n


def _on_device_of(array: Any) -> Any:
    """A context in which CuPy works on ``array``'s device (none needed otherwise)."""
    if _is_cupy(array):
        import cupy

        return cupy.cuda.Device(array.device.id)
    return contextlib.nullcontext()


def _int64(array: Any) -> Any:
    """``array`` as int64, in its framework (torch's uint32 compares and sorts only so)."""
    if _is_torch(array):
        import torch

        return array.to(torch.int64)
    return array.astype("int64")


def _sort(array: Any) -> Any:
    """``array`` (1-D) sorted ascending, in its framework."""
    if _is_torch(array):
        import torch

        return torch.sort(array).values
    if _is_cupy(array):
        import cupy

        return cupy.sort(array)
    return np.sort(array)


def _flatnonzero(mask: Any) -> Any:
    """The indices where the 1-D ``mask`` is true, in its framework."""
    if _is_torch(mask):
        return mask.nonzero().flatten()
    if _is_cupy(mask):
        import cupy

        return cupy.flatnonzero(mask)
    return np.flatnonzero(mask)


def _take(array: Any, rows: Any) -> Any:
    """The ``rows`` (an index array) of ``array``, where it lies."""
    signed = _signed_view(array)
    return array[rows] if signed is array else signed[rows].view(array.dtype)


def _signed_view(array: Any) -> Any:
    """A torch tensor of uint16, uint32 or uint64, which torch supports in few operations, as
    the signed integers of the same bits; anything else as it is."""
    if not _is_torch(array):
        return array
    import torch

    for bits in (16, 32, 64):
        if array.dtype == getattr(torch, f"uint{bits}", None):
            return array.view(getattr(torch, f"int{bits}"))
    return array


def _torch_from(like: Any, values: np.ndarray) -> Any:
    """``values`` as a tensor of ``like``'s dtype (uint32 or its int32 stand-in)."""
    import torch

    return torch.from_numpy(values.astype(np.int64)).to(like.dtype)


def _count(value: Any, name: str) -> int:
    """A nonnegative integer below 2^32, else a ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, not {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be at least 0, not {value}")
    if value > _U32_MAX:
        raise ValueError(f"{name} must be below 2^32, not {value}")
    return int(value)


def _ceil_size(value: Any, name: str) -> int:
    """A size threshold (an int, or a float as cc3d takes) as the smallest size it admits."""
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise ValueError(f"{name} must be finite, not {value}")
        value = max(int(np.ceil(value)), 0)
    return _count(value, name)


def _sequence(value: Any, name: str) -> list:
    try:
        return list(value)
    except TypeError:
        raise ValueError(f"{name} takes a tuple of extents, one per axis, not {value!r}") from None


def _to_numpy(array: Any) -> np.ndarray:
    if _is_torch(array):
        return array.detach().cpu().numpy()
    if _is_cupy(array):
        return array.get()
    return np.asarray(array)


def _address_of(array: Any) -> int:
    return array.data_ptr() if _is_torch(array) else array.data.ptr


def _device_and_stream(array: Any) -> Tuple[int, int]:
    if _is_torch(array):
        import torch

        return array.device.index, torch.cuda.current_stream(array.device).cuda_stream
    import cupy

    return array.device.id, cupy.cuda.get_current_stream().ptr


def _empty_like(array: Any, dtype: str) -> Any:
    if _is_torch(array):
        import torch

        return torch.empty(array.shape, dtype=getattr(torch, dtype), device=array.device)
    import cupy

    with cupy.cuda.Device(array.device.id):
        return cupy.empty(array.shape, dtype=dtype)


def _foreground(image: Any) -> Any:
    """``image != 0`` in its framework (array-likes as numpy)."""
    if _is_torch(image) or _is_device(image):
        return _signed_view(image) != 0
    return np.asarray(image) != 0


def _masked(image: Any, kept: Any) -> Any:
    """``image`` where ``kept``, 0 elsewhere, in its dtype and framework."""
    if _is_torch(image):
        return _signed_view(image).masked_fill(~kept, 0).view(image.dtype)
    if _is_device(image):
        import cupy

        image = cupy.asarray(image)
        return cupy.where(kept, image, 0).astype(image.dtype, copy=False)
    image = np.asarray(image)
    return np.where(kept, image, 0).astype(image.dtype, copy=False)


_LABEL_DTYPES = ("uint16", "uint32", "uint64", "int32", "int64")


def _cast_labels(labels: Any, n: Any, dtype: Any) -> Any:
    """Labels (uint32, or torch's int32 stand-in) as ``dtype`` asks (see :func:`label`)."""
    if isinstance(dtype, str):
        name = dtype
    elif _is_torch_dtype(dtype):
        name = str(dtype).replace("torch.", "")
    else:
        try:
            name = np.dtype(dtype).name
        except TypeError:
            name = repr(dtype)
    if name != "auto" and name not in _LABEL_DTYPES:
        raise ValueError(f"dtype takes 'auto' or one of {', '.join(_LABEL_DTYPES)}, not {dtype!r}")
    torch_labels = _is_torch(labels)
    if name in ("auto", "uint16", "int32"):
        most = int(_to_numpy(n).max(initial=0)) if hasattr(n, "shape") else int(n)
        if name == "auto":
            if torch_labels:
                name = "int32" if most < 2**31 else "int64"
            else:
                name = "uint16" if most < 2**16 else "uint32"
        limit = 2**16 - 1 if name == "uint16" else 2**31 - 1
        if name in ("uint16", "int32") and most > limit:
            raise ValueError(f"{most} components do not fit {name} labels (at most {limit})")
    if torch_labels:
        import torch

        target = getattr(torch, name, None)
        if target is None:
            raise ValueError(f"this torch has no {name}: ask for int32 or int64")
        return labels.to(target)
    return labels.astype(name, copy=False)


def _is_torch_dtype(value: Any) -> bool:
    return type(value).__module__.split(".")[0] == "torch"


# --------------------------------------------------------------- arguments


def _connectivity(value: Any, volumes: bool = False) -> Any:
    """``value`` as an int: 4 or 8, or where ``volumes`` is true also 6, 18, 26 or ``None``
    (the default for the array's dimensions, which :func:`_for_dimensions` resolves)."""
    if volumes and value is None:
        return None
    accepted = _IMAGE_CONNECTIVITIES + (_VOLUME_CONNECTIVITIES if volumes else ())
    expected = (
        "4 or 8 (images), or 6, 18 or 26 (volumes)"
        if volumes
        else "4 or 8 (ccl.label, ccl.analyze and ccl.statistics take 6, 18 or 26 of volumes)"
        if value in _VOLUME_CONNECTIVITIES
        else "4 or 8"
    )
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"connectivity must be {expected}, not {value!r}")
    if value not in accepted:
        raise ValueError(f"connectivity must be {expected}, not {value}")
    return int(value)


def _for_dimensions(connectivity: Optional[int], ndim: int) -> int:
    """The connectivity for an array of ``ndim`` (2 or 3) dimensions: the default where it is
    ``None`` (8 of an image, 26 of a volume), else itself if it is one of those arrays'."""
    if connectivity is None:
        return 8 if ndim == 2 else 26
    if ndim == 2 and connectivity in _VOLUME_CONNECTIVITIES:
        raise ValueError(
            f"connectivity {connectivity} is for 3-D arrays (depth, height, width); this array "
            f"is 2-D: use 4 or 8"
        )
    if ndim == 3 and connectivity in _IMAGE_CONNECTIVITIES:
        raise ValueError(
            f"connectivity {connectivity} is for 2-D arrays (height, width); this array is 3-D "
            f"(depth, height, width): use 6, 18 or 26"
        )
    return connectivity


def _ltype(value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or value not in (CV_32S, CV_16U):
        raise ValueError(
            f"ltype must be cv2.CV_32S ({CV_32S}) or cv2.CV_16U ({CV_16U}), not {value!r}"
        )
    return int(value)


def _as_int32(labels: Any) -> Any:
    """uint32 labels of :func:`label` as OpenCV's int32 (the same bits: labels < 2^31)."""
    if _is_torch(labels):
        import torch

        return labels.to(torch.int32)
    return labels.view("int32")


def _as_ltype(labels: Any, ltype: int, n: int) -> Any:
    """int32 labels as ``ltype`` asks: themselves, or uint16 where ``n`` labels fit."""
    if ltype == CV_32S:
        return labels
    if n > 65536:
        raise ValueError(
            f"{n - 1} components do not fit cv2.CV_16U labels (65535 at most); use cv2.CV_32S"
        )
    if _is_torch(labels):
        import torch

        return labels.to(getattr(torch, "uint16", torch.int32))
    return labels.astype("uint16")


def _no_background_row() -> Tuple[np.ndarray, np.ndarray]:
    """OpenCV's stats and centroids of an image without background pixels and components."""
    # Row 0 as OpenCV 5 writes it there, from ccl_core::opencv's definition.
    return np.array([_ccl.NO_BACKGROUND_STATS], np.int32), np.full((1, 2), np.nan)


def _algorithm(name: Any) -> Optional[str]:
    if name is not None and not isinstance(name, str):
        raise ValueError(f"algorithm must be a variant's name (a str) or None, not {name!r}")
    return name


def _check_shape(shape: Tuple[int, ...], volumes: bool = False) -> None:
    if len(shape) == 2 or (volumes and len(shape) == 3):
        return
    if volumes:
        raise ValueError(
            f"expected a 2-D image (height, width) or a 3-D volume (depth, height, width), got "
            f"{len(shape)} dimensions (shape {shape})"
        )
    hint = (
        " (ccl.label, ccl.analyze and ccl.statistics take 3-D volumes)" if len(shape) == 3 else ""
    )
    raise ValueError(f"expected a 2-D image, got {len(shape)} dimensions (shape {shape}){hint}")


def _check_kind(kind: str, dtype: Any) -> None:
    if kind not in "biuf":
        raise ValueError(
            f"unsupported dtype {dtype}: use bool, integer or float images (nonzero = foreground)"
        )


# -------------------------------------------------------------- host arrays


def _check_out(out: Any, image: np.ndarray) -> None:
    """Raises ValueError unless ``out`` can take the labels of ``image`` in place."""
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be a numpy array, not {type(out).__name__}")
    if out.shape != image.shape:
        raise ValueError(f"out has shape {out.shape}, the image {image.shape}")
    if out.dtype not in (np.dtype(np.uint32), np.dtype(np.int32)):
        raise ValueError(f"out must have dtype uint32 or int32, not {out.dtype}")
    if not out.flags.c_contiguous or not out.flags.writeable or not out.flags.aligned:
        raise ValueError("out must be C-contiguous, aligned and writable")
    if np.shares_memory(out, image):
        raise ValueError("out shares memory with the image")


class _HostInput:
    """A host image or volume as bytes the native module reads in place, and how results go
    back."""

    def __init__(self, data: np.ndarray, to_caller: Callable[[np.ndarray], Any]):
        self.data = data  # kept alive for the call
        self.ndim = data.ndim
        self.empty = data.size == 0
        address = data.__array_interface__["data"][0]
        if data.ndim == 2:
            height, width = data.shape
            row_stride = data.strides[0] if height > 1 else width
            self.args: tuple = (address, height, width, row_stride)
        else:
            depth, height, width = data.shape
            row_stride = data.strides[1] if height > 1 else width
            slice_stride = data.strides[0] if depth > 1 else height * row_stride
            self.args = (address, depth, height, width, row_stride, slice_stride)
        self.result = to_caller

    @staticmethod
    def of(image: Any, volumes: bool = False) -> "_HostInput":
        to_caller: Callable[[np.ndarray], Any] = lambda a: a  # noqa: E731
        if image is None:
            raise ValueError(
                "the image is None, not an array (cv2.imread returns None for a file it cannot "
                "read: check the path)"
            )
        if _is_torch(image):
            import torch

            to_caller = torch.from_numpy
            image = image.detach()
            if image.dtype == torch.bfloat16:  # numpy has no bfloat16
                image = image != 0
            image = image.numpy()
        array = np.asarray(image)
        _check_shape(array.shape, volumes)
        _check_kind(array.dtype.kind, array.dtype)
        if not _readable_in_place(array):
            # One packed byte per pixel; `!= 0` makes -0.0 background and NaN foreground.
            array = np.ascontiguousarray(array != 0).view(np.uint8)
        return _HostInput(array, to_caller)


def _readable_in_place(array: np.ndarray) -> bool:
    """Whether the native module can read ``array`` as it lies: bytes, one per pixel, each row
    packed, rows (and slices) one after another without overlap."""
    if array.dtype.itemsize != 1 or array.dtype.kind not in "biu" or array.strides[-1] != 1:
        return False
    height, width = array.shape[-2:]
    if height > 1 and array.strides[-2] < width:
        return False
    if array.ndim == 2:
        return True
    row_stride = array.strides[1] if height > 1 else width
    slice_bytes = (height - 1) * row_stride + width
    return array.shape[0] == 1 or array.strides[0] >= slice_bytes


# ------------------------------------------------------------ device arrays


# The top-level package of each type seen, by type: a dictionary lookup per
# call where splitting the module's name cost a call a few microseconds (a
# GPU call asks several times).
_PACKAGE_OF_TYPE: Dict[type, str] = {}


def _package(obj: Any) -> str:
    kind = type(obj)
    package = _PACKAGE_OF_TYPE.get(kind)
    if package is None:
        package = _PACKAGE_OF_TYPE[kind] = (kind.__module__ or "").partition(".")[0]
    return package


def _is_torch(obj: Any) -> bool:
    return _package(obj) == "torch"


def _is_cupy(obj: Any) -> bool:
    return _package(obj) == "cupy"


def _is_device(obj: Any) -> bool:
    """Whether ``obj`` is an array in GPU memory (what :class:`_DeviceInput` takes)."""
    if type(obj) is np.ndarray:
        return False  # at once: numpy's __dlpack_device__ call cost a small image's call 2 us
    if _is_torch(obj):
        return bool(obj.is_cuda)
    if _is_cupy(obj) or hasattr(obj, "__cuda_array_interface__"):
        return True
    return hasattr(obj, "__dlpack_device__") and obj.__dlpack_device__()[0] == 2  # kDLCUDA


class _DeviceInput:
    """A 2-D array in GPU memory, or a 3-D one (where ``volumes`` is true): where it lies, its
    layout, the caller's stream, and how to allocate results in the caller's framework on the
    same device. A volume is described by the 2-D array of its rows, slice after slice
    (``depth * height`` rows), which is a view where its slices lie one after the other and a
    contiguous copy otherwise (``_contiguous``)."""

    @staticmethod
    def of(image: Any, volumes: bool = False) -> Optional["_DeviceInput"]:
        if not _is_device(image):
            return None
        if _is_torch(image):
            return _TorchInput(image, volumes)
        if _is_cupy(image):
            return _CupyInput(image, volumes)
        import cupy

        if hasattr(image, "__cuda_array_interface__"):
            return _CupyInput(cupy.asarray(image), volumes)
        return _CupyInput(cupy.from_dlpack(image), volumes)

    def _describe(
        self, address: int, shape, strides, kind: str, itemsize: int, volumes: bool
    ) -> None:
        _check_shape(tuple(shape), volumes)
        _check_kind(kind, self.dtype)
        self.ndim = len(shape)
        if self.ndim == 3:
            self.shape = tuple(int(n) for n in shape)
            self.depth, self.height, self.width = self.shape
            self.empty_input = self.depth * self.height * self.width == 0
            if self.empty_input:
                return
            if int(strides[0]) != self.height * int(strides[1]):
                # Slices apart from one another: the rows of a copy.
                address, strides = self._contiguous()
            self.args = (address, self.depth * self.height, self.width, int(strides[1]),
                         int(strides[2]), kind, itemsize)  # fmt: skip
            return
        self.height, self.width = int(shape[0]), int(shape[1])
        self.args = (address, self.height, self.width, int(strides[0]), int(strides[1]), kind,
                     itemsize)  # fmt: skip


class _CupyInput(_DeviceInput):
    def __init__(self, array: Any, volumes: bool):
        import cupy

        self.cupy = cupy
        self.array = array  # kept alive for the call
        self.dtype = array.dtype  # named in an error only: str() of a dtype is slow
        self.ordinal = array.device.id
        self.stream = cupy.cuda.get_current_stream().ptr
        self.label_dtype = "uint32"
        dtype = array.dtype
        self._describe(
            array.data.ptr, array.shape, array.strides, dtype.kind, dtype.itemsize, volumes
        )

    def _contiguous(self) -> Tuple[int, Tuple[int, ...]]:
        with self.cupy.cuda.Device(self.ordinal):
            self.array = self.cupy.ascontiguousarray(self.array)
        return self.array.data.ptr, self.array.strides

    def empty(self, shape: Tuple[int, ...], dtype: str) -> Any:
        if self.cupy.cuda.runtime.getDevice() == self.ordinal:
            return self.cupy.empty(shape, dtype=dtype)  # no device switch to enter and leave
        with self.cupy.cuda.Device(self.ordinal):
            return self.cupy.empty(shape, dtype=dtype)

    def from_host(self, array: np.ndarray) -> Any:
        with self.cupy.cuda.Device(self.ordinal):
            return self.cupy.asarray(array)

    @staticmethod
    def address_of(array: Any) -> int:
        return array.data.ptr

    @staticmethod
    def result(array: Any) -> Any:
        return array


class _TorchInput(_DeviceInput):
    def __init__(self, tensor: Any, volumes: bool):
        import torch

        self.torch = torch
        self.tensor = tensor.detach()  # kept alive for the call
        self.dtype = tensor.dtype
        self.device = tensor.device
        self.ordinal = tensor.device.index
        self.stream = torch.cuda.current_stream(tensor.device).cuda_stream
        self.label_dtype = "uint32"
        kind, itemsize = _torch_kind(torch, tensor.dtype)
        strides = [s * itemsize for s in tensor.stride()]
        self._describe(tensor.data_ptr(), tensor.shape, strides, kind, itemsize, volumes)

    def _contiguous(self) -> Tuple[int, Tuple[int, ...]]:
        self.tensor = self.tensor.contiguous()
        itemsize = self.tensor.element_size()
        return self.tensor.data_ptr(), tuple(s * itemsize for s in self.tensor.stride())

    def empty(self, shape: Tuple[int, ...], dtype: str) -> Any:
        return self.torch.empty(shape, dtype=_torch_dtype(self.torch, dtype), device=self.device)

    def from_host(self, array: np.ndarray) -> Any:
        return self.torch.from_numpy(array).to(self.device)

    @staticmethod
    def address_of(tensor: Any) -> int:
        return tensor.data_ptr()

    @staticmethod
    def result(tensor: Any) -> Any:
        return tensor


def _torch_kind(torch: Any, dtype: Any) -> Tuple[str, int]:
    """numpy's dtype kind and the item size of a torch dtype (``"c"`` for unsupported ones)."""
    if dtype == torch.bool:
        return "b", 1
    if dtype.is_complex:
        return "c", 0
    itemsize = torch.empty((), dtype=dtype).element_size()
    if dtype.is_floating_point:
        return "f", itemsize
    signed = torch.iinfo(dtype).min < 0
    return ("i" if signed else "u"), itemsize


def _torch_dtype(torch: Any, name: str) -> Any:
    """The torch dtype for a result: unsigned where this torch has it, else the signed one
    of the same size (canonical labels and coordinate sums stay below 2^31 and 2^63)."""
    fallback = {"uint32": "int32", "uint64": "int64"}
    return getattr(torch, name, None) or getattr(torch, fallback.get(name, name))
