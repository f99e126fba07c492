"""Scratch timing of one `ccl.dask` chunk task's steps on one GPU (no dask): a 512³ CuPy chunk
(d = 31 %, 6-connectivity), each step synchronized, median of --reps.

    python3 chunk_steps.py --reps 10
"""

import argparse
import statistics
import time

import cupy
import numpy as np

import ccl
import ccl.dask as cd


def timed(step, reps):
    times = []
    for _ in range(reps):
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        value = step()
        cupy.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return value, statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--side", type=int, default=512)
    a = p.parse_args()
    rng = cupy.random.default_rng(0)
    block = (rng.random((a.side,) * 3, dtype=np.float32) < 0.31).astype(np.uint8)
    firsts, lasts = [True] * 3, [True] * 3
    (labels, n), t_label = timed(lambda: ccl.label(block, 6), a.reps)
    n = int(n)
    _, t_task = timed(lambda: cd._label_chunk(block, 6, None, firsts, lasts, None), a.reps)
    planes = {(ax, i): labels[cd._plane(3, ax, i)].reshape(cd._drop(labels.shape, ax))
              for ax in range(3) for i in (0, -1)}

    def mark():
        on_face = cupy.zeros(n + 1, bool)
        for plane in planes.values():
            on_face[plane] = True
        on_face[0] = False
        return on_face

    on_face, t_mark = timed(mark, a.reps)
    rank, t_rank = timed(lambda: cupy.cumsum(on_face, dtype=np.uint32), a.reps)
    _, t_faces = timed(lambda: cupy.asnumpy(cupy.flatnonzero(on_face)).astype(np.uint32), a.reps)
    _, t_ranked = timed(lambda: {k: cupy.asnumpy(rank[pl]) for k, pl in planes.items()}, a.reps)
    print(f"512^3 chunk, n={n}: ccl.label {t_label:.2f} ms; whole _label_chunk {t_task:.2f} ms; "
          f"face marks {t_mark:.2f}, cumsum {t_rank:.2f}, face labels to host {t_faces:.2f}, "
          f"6 ranked planes to host {t_ranked:.2f} ms")


if __name__ == "__main__":
    main()
