"""Where the time of `ccl.dask.label` goes under dask-cuda's LocalCUDACluster, by phase: the
eager plan (steps 1-4 of ccl/dask.py: label every chunk, the face pairs, the gather to the
client), the merge on the client inside it (`_joined`: the union-find and the numbering, timed by wrapping it), and the
store of the lazy labels (step 5). The volume and chunks of scripts/peers/time_dask.py.

    python3 dask_phases.py --workers 1 --threads-per-worker 8 [--size 2048 --chunk 512]
"""

import argparse
import statistics
import time

import numpy as np


class DiscardSink:
    def __setitem__(self, key, value):
        import cupy

        cupy.cuda.get_current_stream().synchronize()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads-per-worker", type=int, default=8)
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--chunk", type=int, default=512)
    p.add_argument("--density", type=int, default=31)
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    import cupy
    import dask.array as da
    import distributed
    from dask_cuda import LocalCUDACluster

    import ccl.dask as cd

    cluster = LocalCUDACluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker,
                               dashboard_address=None)
    client = distributed.Client(cluster)
    rng = da.random.default_rng(0)
    draws = rng.random((args.size,) * 3, chunks=args.chunk, dtype=np.float32)
    volume = (draws < np.float32(args.density / 100)).astype(np.uint8)
    volume = volume.map_blocks(cupy.asarray, dtype=np.uint8, meta=cupy.empty((0, 0, 0), np.uint8))
    volume = volume.persist()
    distributed.wait(volume)
    joined = []
    original = cd._joined

    def timed_joined(*a, **k):
        start = time.perf_counter()
        result = original(*a, **k)
        joined.append((time.perf_counter() - start, len(a[2])))
        return result

    cd._joined = timed_joined
    cd.label(volume[:args.chunk, :args.chunk, :args.chunk], 6)  # warm-up
    rows = []
    for _ in range(args.reps):
        joined.clear()
        t0 = time.perf_counter()
        labels, n = cd.label(volume, 6)
        t1 = time.perf_counter()
        da.store(labels, DiscardSink(), lock=False)
        t2 = time.perf_counter()
        rows.append((t2 - t0, t1 - t0, joined[0][0], t2 - t1))
        print(f"workers={args.workers}: total {t2 - t0:.3f} s = plan {t1 - t0:.3f} s "
              f"(of it the client's merge {joined[0][0]:.3f} s over {joined[0][1]} pairs) "
              f"+ store {t2 - t1:.3f} s; n={n}", flush=True)
    med = [statistics.median(r[i] for r in rows) for i in range(4)]
    print(f"workers={args.workers} medians: total {med[0]:.3f}, plan {med[1]:.3f}, "
          f"union-find {med[2]:.3f}, store {med[3]:.3f} s", flush=True)
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
