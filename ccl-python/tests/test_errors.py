"""Bad input is refused with the spec's exception type and a message that says what is wrong.

ValueError: arrays that are neither 2-D nor 3-D (0-D, 1-D, 4-D; 3-D for OpenCV's functions),
empty arrays, unsupported dtypes (complex, object, str, bytes), a connectivity other than the
ints 4 and 8 of an image, an unknown algorithm name (the message names known ones), an
algorithm lacking the connectivity or the task. RuntimeError: an algorithm that is not
available here (a CUDA variant on a machine without GPU), with a reason. Each function
(`label`, `connected_components_with_stats`, `analyze`, `statistics`) is checked, and `ccl`
still works after refusing. test_volumes.py checks the errors of volumes.

The messages are matched with loose, case-insensitive patterns: they must mention the subject,
their wording is free.
"""

from __future__ import annotations

import re

import numpy as np
import scipy.ndimage
import pytest

import ccl
from conftest import ALGORITHMS, CONNECTIVITIES, case_image, case_oracle, check_label_result

FUNCTIONS = {
    "label": ccl.label,
    "connected_components_with_stats": ccl.connected_components_with_stats,
    "analyze": ccl.analyze,
    "statistics": ccl.statistics,
}
TASK_OF = {
    "label": "label",
    "connected_components_with_stats": "label",
    "analyze": "analyze",
    "statistics": "analyze",
}

parametrize_functions = pytest.mark.parametrize(
    "function_name", list(FUNCTIONS), ids=list(FUNCTIONS)
)

GOOD = np.array([[1, 0, 1], [0, 1, 0]], dtype=np.uint8)

NOT_2D = re.compile(r"2-?d|two.dim|dimension|ndim", re.IGNORECASE)
EMPTY = re.compile(r"empty|zero|size|shape|pixel", re.IGNORECASE)
NOT_2D_OR_EMPTY = re.compile(f"{NOT_2D.pattern}|{EMPTY.pattern}", re.IGNORECASE)
DTYPE = re.compile(r"dtype|type", re.IGNORECASE)
CONNECTIVITY = re.compile(r"connectivit", re.IGNORECASE)
TASK = re.compile(r"task|label|analy", re.IGNORECASE)


THREE_D = [
    np.zeros((2, 3, 4), np.uint8),
    np.ones((1, 5, 5), np.uint8),  # not to be squeezed
    np.ones((5, 5, 1), np.bool_),
]
THREE_D_IDS = ["3d", "3d-leading-1", "3d-trailing-1"]


@parametrize_functions
@pytest.mark.parametrize(
    "image",
    [
        np.ones((1, 1, 1, 1), np.float32),
        np.ones(5, np.uint8),
        np.ones(1, np.int32),
        np.array(1, np.uint8),
        np.array(0.0),
        [1, 0, 1],
        7,
    ],
    ids=["4d", "1d", "1d-single", "0d", "0d-float", "list-1d", "scalar"],
)
def test_not_2d_is_value_error(function_name, image):
    with pytest.raises(ValueError, match=NOT_2D):
        FUNCTIONS[function_name](image)


@pytest.mark.parametrize("image", THREE_D, ids=THREE_D_IDS)
def test_3d_is_a_volume_not_an_image(image):
    """OpenCV's functions take images only; the others take a 3-D array as a volume, whose
    connectivity is 6, 18 or 26 (never squeezed to an image's 4 or 8)."""
    with pytest.raises(ValueError, match=NOT_2D):
        ccl.connected_components_with_stats(image)
    with pytest.raises(ValueError, match=NOT_2D):
        ccl.connected_components(image)
    for function_name in ("label", "analyze", "statistics"):
        for connectivity in CONNECTIVITIES:
            with pytest.raises(ValueError, match="3-D"):
                FUNCTIONS[function_name](image, connectivity)
        FUNCTIONS[function_name](image)  # 26-connected


def check_empty_results(image, shape):
    """What an image without pixels gives: scipy's empty labels and 0; OpenCV's layout with
    only the background row (OpenCV itself crashes on it); no features."""
    labels, n = ccl.label(image)
    assert n == 0 and labels.shape == shape and labels.dtype == np.uint32
    assert (labels, n)[1] == scipy.ndimage.label(np.zeros(shape, np.uint8))[1]
    n, labels, stats, centroids = ccl.connected_components_with_stats(image)
    assert n == 1 and labels.shape == shape and labels.dtype == np.int32
    assert stats.tolist() == [[-1, 2**31 - 1, 0, 0, 0]] and stats.dtype == np.int32
    assert centroids.shape == (1, 2) and np.isnan(centroids).all()
    n, labels = ccl.connected_components(image)
    assert n == 1 and labels.shape == shape and labels.dtype == np.int32
    features = ccl.analyze(image)
    assert len(features.area) == 0 and features.centroids.shape == (0, 2)
    none = {"voxel_counts": None, "bounding_boxes": None, "centroids": None}
    assert ccl.statistics(image) == none  # as cc3d.statistics


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", [np.uint8, np.bool_, np.float64], ids=lambda d: d.__name__)
def test_empty_images_have_no_components(shape, dtype):
    check_empty_results(np.zeros(shape, dtype), shape)


def test_empty_views_and_lists_have_no_components():
    base = np.ones((4, 6), np.uint8)
    for view in (base[2:2], base[:, 6:], base[::-1][4:]):
        assert view.size == 0
        check_empty_results(view, view.shape)
    check_empty_results([[]], (1, 0))


@parametrize_functions
def test_empty_list_is_value_error(function_name):
    with pytest.raises(ValueError, match=NOT_2D):
        FUNCTIONS[function_name]([])


@parametrize_functions
def test_none_says_it_is_none(function_name):
    # What cv2.imread returns for a file it cannot read.
    with pytest.raises(ValueError, match="None.*not an array.*cv2.imread"):
        FUNCTIONS[function_name](None)


def test_opencv_s_arguments_are_taken_positionally_and_by_name():
    image = np.eye(6, dtype=np.uint8)  # a diagonal: 1 component under 8, 6 under 4
    n, labels, stats, centroids = ccl.connected_components_with_stats(image, 8, ccl.CV_32S)
    assert n == 2 and labels.dtype == np.int32
    n, labels, _, _ = ccl.connected_components_with_stats(image, connectivity=4, ltype=ccl.CV_16U)
    assert n == 7 and labels.dtype == np.uint16 and labels.max() == 6
    n, labels = ccl.connected_components(image, 4, ccl.CV_16U)
    assert n == 7 and labels.dtype == np.uint16
    n, labels = ccl.connected_components(image, connectivity=8)
    assert n == 2 and labels.dtype == np.int32
    assert (ccl.CV_32S, ccl.CV_16U) == (4, 2)  # cv2's values
    with pytest.raises(ValueError, match="ltype must be cv2.CV_32S"):
        ccl.connected_components_with_stats(image, 8, 5)  # cv2.CV_32F
    with pytest.raises(ValueError, match="ltype must be cv2.CV_32S"):
        ccl.connected_components_with_stats(image, 8, "cpu-uf")  # ccl's own option is a keyword
    with pytest.raises(TypeError):
        ccl.label(image, 8, "cpu-uf")


def test_cv_16u_refuses_what_it_cannot_hold():
    image = np.zeros((2, 2 * 70_000), np.uint8)
    image[0, ::2] = 1  # 70000 components
    with pytest.raises(ValueError, match="70000 components do not fit cv2.CV_16U"):
        ccl.connected_components_with_stats(image, 4, ccl.CV_16U)


def test_ccltype_is_mapped_or_refused():
    image = np.eye(6, dtype=np.uint8)
    for ccltype in range(-1, 6):
        n = ccl.connected_components_with_stats_with_algorithm(image, 4, ccl.CV_32S, ccltype)[0]
        assert n == 7
    for ccltype in (0, 3):  # CCL_WU, CCL_SAUF
        n = ccl.connected_components_with_stats_with_algorithm(image, 8, ccl.CV_32S, ccltype)[0]
        assert n == 2
    for ccltype, name in [(-1, "CCL_DEFAULT"), (4, "CCL_BBDT"), (5, "CCL_SPAGHETTI")]:
        with pytest.raises(ValueError, match=f"{name} numbers 8-connected components"):
            ccl.connected_components_with_stats_with_algorithm(image, 8, ccl.CV_32S, ccltype)
    with pytest.raises(ValueError, match="ccltype must be one of OpenCV's"):
        ccl.connected_components_with_stats_with_algorithm(image, 8, ccl.CV_32S, 9)


@parametrize_functions
@pytest.mark.parametrize(
    "image",
    [
        np.array([[1 + 1j, 0], [0, 1]], dtype=np.complex64),
        np.array([[1 + 1j, 0], [0, 1]], dtype=np.complex128),
        np.array([[1, 0], [0, 1]], dtype=object),
        np.array([["a", ""], ["", "b"]]),
        np.array([[b"a", b""], [b"", b"b"]]),
        [["a", ""], ["", "b"]],
    ],
    ids=["complex64", "complex128", "object", "str", "bytes", "list-of-str"],
)
def test_unsupported_dtype_is_value_error(function_name, image):
    with pytest.raises(ValueError, match=DTYPE):
        FUNCTIONS[function_name](image)


@parametrize_functions
@pytest.mark.parametrize(
    "connectivity",
    [0, 1, 2, 6, 16, -4, -8, 2**32 + 8, "8", "4", "eight"],
    ids=lambda c: repr(c),
)
def test_bad_connectivity_is_value_error(function_name, connectivity):
    with pytest.raises(ValueError, match=CONNECTIVITY):
        FUNCTIONS[function_name](GOOD, connectivity)
    with pytest.raises(ValueError, match=CONNECTIVITY):
        FUNCTIONS[function_name](GOOD, connectivity=connectivity)


@parametrize_functions
@pytest.mark.parametrize("name", ["no-such-algorithm", "cpu_uf_typo", "cpu-uf-nope"])
def test_unknown_algorithm_is_value_error_naming_known_ones(function_name, name):
    with pytest.raises(ValueError) as raised:
        FUNCTIONS[function_name](GOOD, 8, algorithm=name)
    message = str(raised.value)
    known = [info.name for info in ccl.algorithms()]
    assert any(k in message for k in known), f"message names no known algorithm: {message!r}"


def _lacking_params():
    """(function, algorithm, connectivity) where an available algorithm lacks what is asked."""
    params = []
    for info in ALGORITHMS:
        if not info.available:
            continue
        for connectivity in CONNECTIVITIES:
            if connectivity not in info.connectivities:
                for function_name in FUNCTIONS:
                    params.append(
                        pytest.param(
                            function_name,
                            info.name,
                            connectivity,
                            "connectivity",
                            id=f"{function_name}-{info.name}-c{connectivity}",
                        )
                    )
        for function_name in ("label", "analyze", "statistics"):
            task = TASK_OF[function_name]
            if task not in info.tasks:
                connectivity = info.connectivities[0]
                params.append(
                    pytest.param(
                        function_name,
                        info.name,
                        connectivity,
                        "task",
                        id=f"{function_name}-{info.name}",
                    )
                )
    if not params:
        params.append(
            pytest.param(
                None, None, None, None,
                marks=pytest.mark.skip(reason="every available algorithm does every task"),
                id="none",
            )
        )
    return params


@pytest.mark.parametrize("function_name, algorithm, connectivity, lacking", _lacking_params())
def test_algorithm_lacking_connectivity_or_task_is_value_error(
    function_name, algorithm, connectivity, lacking
):
    pattern = CONNECTIVITY if lacking == "connectivity" else TASK
    with pytest.raises(ValueError, match=pattern):
        FUNCTIONS[function_name](GOOD, connectivity, algorithm=algorithm)


GOOD_VOLUME = GOOD[np.newaxis]


def _call_for(function_name, info):
    """An input and a connectivity `info`'s variant takes in this call: the
    image and its last image connectivity, or, for a variant that labels
    volumes only (`tiles`), a volume with its first; None where the call
    takes no volume (connected_components_with_stats)."""
    images = [c for c in info.connectivities if c in CONNECTIVITIES]
    if images:
        return GOOD, images[-1]
    if function_name == "connected_components_with_stats":
        return None
    return GOOD_VOLUME, info.connectivities[0]


def _unavailable_params():
    params = [
        pytest.param(function_name, info.name, id=f"{function_name}-{info.name}")
        for info in ALGORITHMS
        if not info.available
        for function_name in FUNCTIONS
        if TASK_OF[function_name] in info.tasks and _call_for(function_name, info) is not None
    ]
    if not params:
        params.append(
            pytest.param(None, None, marks=pytest.mark.skip(reason="every algorithm is available"))
        )
    return params


@pytest.mark.parametrize("function_name, algorithm", _unavailable_params())
def test_unavailable_algorithm_is_runtime_error_saying_why(function_name, algorithm):
    info = next(info for info in ccl.algorithms() if info.name == algorithm)
    data, connectivity = _call_for(function_name, info)
    with pytest.raises(RuntimeError) as raised:
        FUNCTIONS[function_name](data, connectivity, algorithm=algorithm)
    assert not isinstance(raised.value, NotImplementedError)
    assert str(raised.value).strip(), "the RuntimeError says nothing"


@parametrize_functions
def test_cuda_algorithm_without_gpu_is_runtime_error(function_name):
    cuda = [info for info in ccl.algorithms() if info.backend == "cuda"]
    if any(info.available for info in cuda):
        pytest.skip("a CUDA algorithm is available here")
    assert cuda, "no CUDA algorithm is registered"
    for info in cuda:
        call = _call_for(function_name, info)
        if TASK_OF[function_name] not in info.tasks or call is None:
            continue
        data, connectivity = call
        with pytest.raises(RuntimeError, match=r"\S"):
            FUNCTIONS[function_name](data, connectivity, algorithm=info.name)


def test_still_works_after_errors():
    bad_calls = [
        lambda: ccl.label(np.zeros((2, 2, 2)), 8),
        lambda: ccl.label(None),
        lambda: ccl.label(GOOD, 5),
        lambda: ccl.label(GOOD, 8, algorithm="no-such-algorithm"),
        lambda: ccl.analyze(np.zeros((2, 2), np.complex64)),
    ]
    for call in bad_calls:
        with pytest.raises(ValueError):
            call()
    case_id = "random-256x256-d60-g1"
    for connectivity in CONNECTIVITIES:
        image = case_image(case_id).copy()
        check_label_result(
            ccl.label(image, connectivity),
            case_oracle(case_id, connectivity),
            image.shape,
            f"[after errors, c{connectivity}]",
        )
