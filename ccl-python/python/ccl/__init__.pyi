# Type stubs of the `ccl` package (the docstrings are in __init__.py).
from typing import Any, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

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

CV_32S: int
CV_16U: int

class AlgorithmInfo(NamedTuple):
    name: str
    backend: str
    connectivities: Tuple[int, ...]
    tasks: Tuple[str, ...]
    available: bool
    reason: Optional[str]
    summary: str
    priority: int

class Features(NamedTuple):
    area: Any
    x_min: Any
    y_min: Any
    x_max: Any
    y_max: Any
    sum_x: Any
    sum_y: Any
    centroids: Any

class VolumeFeatures(NamedTuple):
    area: Any
    x_min: Any
    y_min: Any
    z_min: Any
    x_max: Any
    y_max: Any
    z_max: Any
    sum_x: Any
    sum_y: Any
    sum_z: Any
    centroids: Any

# What statistics returns (stub-only names): cc3d.statistics' dict, None throughout for an
# array without voxels.
class _StatisticsSlices(TypedDict):
    voxel_counts: Optional[npt.NDArray[np.uint32]]
    bounding_boxes: Optional[List[Optional[Tuple[slice, ...]]]]
    centroids: Optional[npt.NDArray[np.float64]]

class _StatisticsArrays(TypedDict):
    voxel_counts: Optional[npt.NDArray[np.uint32]]
    bounding_boxes: Optional[npt.NDArray[Union[np.uint16, np.uint32]]]
    centroids: Optional[npt.NDArray[np.float64]]


def algorithms() -> List[AlgorithmInfo]: ...
@overload
def label(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    out: Optional[npt.NDArray[Any]] = None,
    batch: Literal[True],
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: Optional[Tuple[int, ...]] = None,
    max_extent: Optional[Tuple[int, ...]] = None,
    dtype: Any = None,
) -> Tuple[Any, Any]: ...
@overload
def label(
    image: npt.ArrayLike,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    out: None = None,
    batch: Literal[False] = False,
) -> Tuple[npt.NDArray[np.uint32], int]: ...
@overload
def label(
    image: npt.ArrayLike,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    out: npt.NDArray[Any],
    batch: Literal[False] = False,
) -> Tuple[npt.NDArray[Any], int]: ...
@overload
def label(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    out: Optional[npt.NDArray[Any]] = None,
    batch: Literal[False] = False,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: Optional[Tuple[int, ...]] = None,
    max_extent: Optional[Tuple[int, ...]] = None,
    dtype: Any = None,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Tuple[Any, int]: ...
_Extent = Optional[Tuple[int, ...]]
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
    min_extent: _Extent = None,
    max_extent: _Extent = None,
) -> Any: ...
def dust(
    image: Any,
    threshold: Union[int, float, Tuple[Any, Any]],
    connectivity: Optional[int] = None,
    *,
    invert: bool = False,
    algorithm: Optional[str] = None,
    batch: bool = False,
    classes: bool = False,
) -> Any: ...
def label_classes(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    batch: bool = False,
    dtype: Any = None,
) -> Tuple[Any, ...]: ...
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
) -> Any: ...
def connected_components(
    image: Any, connectivity: int = 8, ltype: int = 4, *, algorithm: Optional[str] = None
) -> Tuple[int, Any]: ...
@overload
def connected_components_with_stats(
    image: npt.ArrayLike, connectivity: int = 8, ltype: int = 4, *, algorithm: Optional[str] = None
) -> Tuple[int, npt.NDArray[Any], npt.NDArray[np.int32], npt.NDArray[np.float64]]: ...
@overload
def connected_components_with_stats(
    image: Any, connectivity: int = 8, ltype: int = 4, *, algorithm: Optional[str] = None
) -> Tuple[int, Any, Any, Any]: ...
def connected_components_with_stats_with_algorithm(
    image: Any,
    connectivity: int,
    ltype: int,
    ccltype: int,
    *,
    algorithm: Optional[str] = None,
) -> Tuple[int, Any, Any, Any]: ...
@overload
def analyze(
    image: Any,
    connectivity: Optional[Literal[4, 8]] = None,
    *,
    algorithm: Optional[str] = None,
    batch: Literal[True],
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: _Extent = None,
    max_extent: _Extent = None,
    max_gpu_memory: None = None,
    devices: None = None,
) -> List[Features]: ...
@overload
def analyze(
    image: Any,
    connectivity: Literal[4, 8],
    *,
    algorithm: Optional[str] = None,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: _Extent = None,
    max_extent: _Extent = None,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Features: ...
@overload
def analyze(
    image: Any,
    connectivity: Literal[6, 18, 26],
    *,
    algorithm: Optional[str] = None,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: _Extent = None,
    max_extent: _Extent = None,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> VolumeFeatures: ...
@overload
def analyze(
    image: Any,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    min_size: Optional[int] = None,
    max_size: Optional[int] = None,
    largest: Optional[int] = None,
    min_extent: _Extent = None,
    max_extent: _Extent = None,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Union[Features, VolumeFeatures]: ...
@overload
def statistics(
    image: npt.ArrayLike,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    no_slice_conversion: Literal[False] = False,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> _StatisticsSlices: ...
@overload
def statistics(
    image: npt.ArrayLike,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    no_slice_conversion: Literal[True],
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> _StatisticsArrays: ...
@overload
def statistics(
    image: npt.ArrayLike,
    connectivity: Optional[int] = None,
    *,
    algorithm: Optional[str] = None,
    no_slice_conversion: bool = False,
    max_gpu_memory: Union[int, str, None] = None,
    devices: Optional[List[int]] = None,
) -> Union[_StatisticsSlices, _StatisticsArrays]: ...
