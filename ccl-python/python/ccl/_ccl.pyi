# Type stubs of the native module (ccl-python/src); the public API is ccl/__init__.py.
from typing import Callable, List, Optional, Tuple

class HostArray:
    """A C-ordered array owned by Rust; numpy.asarray wraps it without a copy."""

    @property
    def __array_interface__(self) -> dict: ...

_ImageArgs = Tuple[int, int, int, int]
# (address, depth, height, width, row_stride, slice_stride)
_VolumeArgs = Tuple[int, int, int, int, int, int]
_ArrayArgs = Tuple[int, int, int, int, int, str, int]

NO_BACKGROUND_STATS: List[int]
"""OpenCV's stats row 0 of an image without background pixels (ccl_core::opencv)."""

def algorithms() -> List[
    Tuple[str, str, List[int], List[str], bool, Optional[str], str, int]
]: ...
def label_host(
    image_args: _ImageArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[HostArray, int]: ...
def label_host_into(
    image_args: _ImageArgs,
    labels_address: int,
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> int: ...
def connected_components_with_stats_host(
    image_args: _ImageArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[int, HostArray, HostArray, HostArray]: ...
def analyze_host(
    image_args: _ImageArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[HostArray, HostArray, HostArray]: ...
def label_volume_host(
    volume_args: _VolumeArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[HostArray, int]: ...
def label_volume_host_into(
    volume_args: _VolumeArgs,
    labels_address: int,
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> int: ...
def analyze_volume_host(
    volume_args: _VolumeArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[HostArray, HostArray, HostArray]: ...
def statistics_host(
    image_args: _ImageArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[HostArray, HostArray, HostArray]: ...
def statistics_volume_host(
    volume_args: _VolumeArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> Tuple[HostArray, HostArray, HostArray]: ...
def label_device(
    device: int,
    stream: int,
    array: _ArrayArgs,
    labels: int,
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> int: ...
def connected_components_with_stats_device(
    device: int,
    stream: int,
    array: _ArrayArgs,
    labels: int,
    connectivity_value: int,
    allocate: Callable[[int], Tuple[int, int]],
    algorithm: Optional[str] = None,
) -> int: ...
def analyze_device(
    device: int,
    stream: int,
    array: _ArrayArgs,
    connectivity_value: int,
    allocate: Callable[[int], Tuple[int, int, int]],
    algorithm: Optional[str] = None,
) -> int: ...
def label_batch_host(
    volume_args: _VolumeArgs,
    labels_address: int,
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> HostArray: ...
def analyze_batch_host(
    volume_args: _VolumeArgs, connectivity_value: int, algorithm: Optional[str] = None
) -> List[Tuple[HostArray, HostArray, HostArray]]: ...
def label_batch_device(
    device: int,
    stream: int,
    rows: _ArrayArgs,
    images: int,
    height: int,
    labels: int,
    counts: int,
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> None: ...
def analyze_batch_device(
    device: int,
    stream: int,
    rows: _ArrayArgs,
    images: int,
    height: int,
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> List[Tuple[HostArray, HostArray, HostArray]]: ...
_FilterArgs = Tuple[int, int, List[int], List[int], Optional[int]]
# (images, depth, height, width)
_ShapeArgs = Tuple[int, int, int, int]

def filter_host(
    labels_address: int, counts_address: int, shape: _ShapeArgs, filter: _FilterArgs
) -> None: ...
def filter_device(
    device: int,
    stream: int,
    labels: int,
    shape: _ShapeArgs,
    count: Optional[int],
    counts: Optional[int],
    filter: _FilterArgs,
    mask: Optional[int],
    connectivity_value: int,
    algorithm: Optional[str] = None,
) -> Optional[int]: ...
def face_pairs(
    last_address: int,
    shape: Tuple[int, int],
    following_address: int,
    sources_address: int,
    padded: Tuple[int, int],
    low: Tuple[int, int],
    offsets_address: int,
    offsets: int,
    slots: int,
) -> Tuple[HostArray, HostArray]: ...
def join_chunk_faces(
    counts_address: int,
    sizes_address: int,
    chunks: int,
    faces_address: int,
    first_address: int,
    second_address: int,
    pairs: int,
) -> Tuple[HostArray, HostArray, HostArray, HostArray]: ...
def parse_size(text: str) -> int: ...
def label_strips_host(
    address: int,
    shape: List[int],
    labels_address: int,
    wide: bool,
    connectivity_value: int,
    algorithm: Optional[str] = None,
    max_memory: Optional[int] = None,
    devices: Optional[List[int]] = None,
) -> Tuple[int, int]: ...
def analyze_strips_host(
    address: int,
    shape: List[int],
    connectivity_value: int,
    algorithm: Optional[str] = None,
    max_memory: Optional[int] = None,
    devices: Optional[List[int]] = None,
) -> Tuple[HostArray, HostArray, HostArray, HostArray, HostArray]: ...
def statistics_strips_host(
    address: int,
    shape: List[int],
    connectivity_value: int,
    algorithm: Optional[str] = None,
    max_memory: Optional[int] = None,
    devices: Optional[List[int]] = None,
) -> Tuple[HostArray, HostArray, HostArray]: ...
def label_backend(connectivity_value: int, algorithm: Optional[str] = None) -> str: ...
def label_classes_host(
    map_args: Tuple[int, int, int, int, str, int],
    labels_address: int,
    connectivity_value: int,
    batch: bool,
) -> Tuple[HostArray, HostArray]: ...
def label_classes_device(
    device: int,
    stream: int,
    rows: _ArrayArgs,
    depth: int,
    height: int,
    labels: int,
    counts: Optional[int],
    connectivity_value: int,
    allocate: Callable[[int], int],
) -> int: ...
