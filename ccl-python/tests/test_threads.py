"""`ccl` is safe and useful from several Python threads.

* Eight threads label eight different 1024x1024 images at once, several times each, through
  `label`, `connected_components_with_stats` and `analyze`, with different algorithms and
  connectivities; every result equals OpenCV's, computed sequentially beforehand.
* The GIL is released while labeling: another Python thread runs Python code while a call is
  in flight. The proof is made deterministic by raising the interpreter's switch interval so
  that the GIL never changes hands by preemption during the test: the watching thread can then
  only run while the labeling thread has released the GIL of its own accord, and it records
  whether the labeling thread was inside a `ccl` call at those moments.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import ccl
from conftest import (
    compute_oracle,
    features_from_labels,
    partition_mismatch,
    random_image,
)

THREADS = 8
ROUNDS = 3
SIDE = 1024

#: Algorithms the threads cycle through (None: the default).
THREAD_ALGORITHMS = (None, "cpu-rle", "cpu-uf", "cpu-rle-1t")


def _thread_inputs():
    inputs = []
    for i in range(THREADS):
        density = (30, 45, 55, 60, 70, 50, 40, 65)[i]
        granularity = (1, 1, 4, 1, 16, 4, 1, 1)[i]
        binary = random_image((SIDE, SIDE + 3 * i), density, granularity, seed=1000 + i)
        connectivity = 4 if i % 2 else 8
        algorithm = THREAD_ALGORITHMS[i % len(THREAD_ALGORITHMS)]
        inputs.append((binary.astype(np.uint8), connectivity, algorithm))
    return inputs


def _worker(index, image, connectivity, algorithm, oracle, barrier):
    """Label the image ROUNDS times; return a list of what went wrong (empty if nothing)."""
    problems = []
    where = f"thread {index} ({algorithm or 'default'}, c{connectivity})"
    barrier.wait(timeout=60)
    for round_ in range(ROUNDS):
        labels, n = ccl.label(image, connectivity=connectivity, algorithm=algorithm)
        if n != oracle.n:
            problems.append(f"{where} round {round_}: label n {n} != {oracle.n}")
        if labels.dtype != np.uint32 or not np.array_equal(labels, oracle.labels):
            why = partition_mismatch(labels, oracle.labels) or "numbered differently"
            problems.append(f"{where} round {round_}: label labels differ: {why}")
        n_cv, labels_cv, stats, centroids = ccl.connected_components_with_stats(
            image, connectivity, algorithm=algorithm
        )
        if n_cv != oracle.cv_n:
            problems.append(f"{where} round {round_}: stats n {n_cv} != {oracle.cv_n}")
        if not np.array_equal(labels_cv, oracle.labels):
            problems.append(f"{where} round {round_}: stats labels differ")
        if not np.array_equal(stats, oracle.cv_stats):
            problems.append(f"{where} round {round_}: stats differ")
        if not np.array_equal(centroids, oracle.cv_centroids, equal_nan=True):
            problems.append(f"{where} round {round_}: centroids differ")
        features = ccl.analyze(image, connectivity, algorithm=algorithm)
        if not np.array_equal(features.area, oracle.features.area) or not np.array_equal(
            features.sum_x, oracle.features.sum_x
        ):
            problems.append(f"{where} round {round_}: analyze differs")
    return problems


def test_eight_threads_label_at_once_exactly():
    inputs = _thread_inputs()
    # The expected results, computed one after another before any thread starts.
    oracles = [compute_oracle(image != 0, connectivity) for image, connectivity, _ in inputs]
    for oracle in oracles:
        assert oracle.has_background
    barrier = threading.Barrier(THREADS)
    with ThreadPoolExecutor(THREADS) as pool:
        futures = [
            pool.submit(_worker, i, image, connectivity, algorithm, oracles[i], barrier)
            for i, (image, connectivity, algorithm) in enumerate(inputs)
        ]
        problems = [p for future in futures for p in future.result(timeout=600)]
    assert not problems, "\n".join(problems)


def test_threads_share_one_image():
    """Several threads reading the same (read-only) array at once."""
    binary = random_image((SIDE, SIDE), 55, 1, seed=77)
    image = binary.astype(np.uint8)
    image.flags.writeable = False
    oracle = compute_oracle(binary, 8)
    barrier = threading.Barrier(THREADS)
    with ThreadPoolExecutor(THREADS) as pool:
        futures = [
            pool.submit(_worker, i, image, 8, THREAD_ALGORITHMS[i % 4], oracle, barrier)
            for i in range(THREADS)
        ]
        problems = [p for future in futures for p in future.result(timeout=600)]
    assert not problems, "\n".join(problems)
    assert np.array_equal(image, binary.astype(np.uint8))
    assert features_from_labels(oracle.labels, oracle.n).area.sum() == binary.sum()


GIL_SIDE = 4096
GIL_CALLS = 3


def test_gil_is_released_while_labeling():
    image = random_image((GIL_SIDE, GIL_SIDE), 50, 1, seed=99).astype(np.uint8)
    state = {"in_call": False, "calls_done": 0}
    observations = {"in_call": 0, "total": 0}
    results = []
    finished = threading.Event()

    def labeler():
        try:
            for _ in range(GIL_CALLS):
                # No GIL hand-over can happen between these statements and the call (the switch
                # interval is huge and nothing here blocks): the watcher can see in_call True
                # only if the GIL was released inside ccl.label.
                state["in_call"] = True
                labels, n = ccl.label(image, 8)
                state["in_call"] = False
                state["calls_done"] += 1
                results.append(n)
        finally:
            state["in_call"] = False
            finished.set()

    def watcher():
        while not finished.is_set():
            observations["total"] += 1
            if state["in_call"]:
                observations["in_call"] += 1
            # A blocking wait releases the GIL each turn, so the labeler gets it back at once
            # when its call returns (this is a yield, not synchronization).
            finished.wait(0.0002)

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        with ThreadPoolExecutor(2) as pool:
            watching = pool.submit(watcher)
            labeling = pool.submit(labeler)
            labeling.result(timeout=600)
            watching.result(timeout=600)
    finally:
        sys.setswitchinterval(old_interval)

    assert state["calls_done"] == GIL_CALLS
    expected_n = compute_oracle(image != 0, 8).n
    assert results == [expected_n] * GIL_CALLS
    assert observations["in_call"] > 0, (
        f"another Python thread never ran while ccl.label was in flight "
        f"({observations['total']} watcher turns, none during the {GIL_CALLS} calls on "
        f"{GIL_SIDE}x{GIL_SIDE} images): the GIL is held while labeling"
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda image: ccl.connected_components_with_stats(image, 4),
        lambda image: ccl.analyze(image, 4),
        lambda image: ccl.label(image, 4, algorithm="cpu-uf"),
    ],
    ids=["connected_components_with_stats", "analyze", "label-cpu-uf"],
)
def test_gil_is_released_by_every_entry_point(call):
    """The same proof, shorter, for the other entry points (and a named algorithm)."""
    image = random_image((2048, 2048), 50, 1, seed=98).astype(np.uint8)
    state = {"in_call": False}
    seen = {"in_call": 0}
    finished = threading.Event()

    def labeler():
        try:
            for _ in range(GIL_CALLS):
                state["in_call"] = True
                call(image)
                state["in_call"] = False
        finally:
            state["in_call"] = False
            finished.set()

    def watcher():
        while not finished.is_set():
            if state["in_call"]:
                seen["in_call"] += 1
            finished.wait(0.0002)

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    try:
        with ThreadPoolExecutor(2) as pool:
            watching = pool.submit(watcher)
            labeling = pool.submit(labeler)
            labeling.result(timeout=600)
            watching.result(timeout=600)
    finally:
        sys.setswitchinterval(old_interval)
    assert seen["in_call"] > 0, "no other Python thread ran while the call was in flight"
