"""Scratch profile of `ccl.dask.label` on a LocalCUDACluster: where the time of one call goes.

Times, in the client, `ccl.dask.label` (the eager pass: its graph's compute, whose last task
joins the faces) and `da.store` of the labels (the lazy pass), with the client-side steps
wrapped in timers; and, from distributed's task stream, each kind of task's time summed over the
workers and the span from the first task's start to the last one's end.

    python3 profile_dask.py --workers 2 --size 2048 --chunk 512 --reps 3
"""

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "peers"))

import time_dask  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--threads-per-worker", type=int, default=8)
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--chunk", type=int, default=512)
    p.add_argument("--density", type=int, default=31)
    p.add_argument("--connectivity", type=int, default=6)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    args = argparse.Namespace(scheduler="distributed", workers=a.workers,
                              threads_per_worker=a.threads_per_worker, cupy=True, seed=0,
                              size=(a.size,) * 3, chunk=(a.chunk,) * 3)
    import dask.array as da
    import distributed

    import ccl.dask as cd

    client, note = time_dask.start_scheduler(args)
    print(note, flush=True)
    volume = time_dask.random_volume(args, a.density, on_gpu=True).persist()
    distributed.wait(volume)
    laps = collections.defaultdict(list)

    def timed(name, function):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                laps[name].append(time.perf_counter() - t0)
        return wrapper

    for name in ("_plan", "_relabeled"):
        setattr(cd, name, timed(name, getattr(cd, name)))
    cd.dask.compute = timed("plan compute", cd.dask.compute)
    sink = time_dask.DiscardSink()
    # Warm-up on one chunk.
    labels, n = cd.label(volume[:a.chunk, :a.chunk, :a.chunk], a.connectivity)
    da.store(labels, sink, lock=False)
    laps.clear()
    for rep in range(a.reps):
        with distributed.get_task_stream(client) as stream:
            t0 = time.perf_counter()
            labels, n = cd.label(volume, a.connectivity)
            t1 = time.perf_counter()
            da.store(labels, sink, lock=False)
            t2 = time.perf_counter()
        print(f"rep {rep}: label (eager) {t1 - t0:.3f} s, store {t2 - t1:.3f} s, "
              f"total {t2 - t0:.3f} s, n={int(n)}")
        kinds = collections.defaultdict(lambda: [0.0, float("inf"), 0.0, 0])
        for task in stream.data:
            key = task["key"]
            key = key if isinstance(key, tuple) else (key,)
            kind = str(key[0]).rsplit("-", 1)[0]
            if len(key) > 1 and isinstance(key[1], str):
                kind += ":" + key[1]
            for part in task["startstops"]:
                if part["action"] != "compute":
                    continue
                k = kinds[kind]
                k[0] += part["stop"] - part["start"]
                k[1] = min(k[1], part["start"])
                k[2] = max(k[2], part["stop"])
                k[3] += 1
        base = min(k[1] for k in kinds.values()) if kinds else 0
        for kind, (busy, start, stop, count) in sorted(kinds.items(), key=lambda kv: kv[1][1]):
            print(f"   {kind:50s} {count:5d} tasks, busy {busy:7.3f} s, "
                  f"from {start - base:6.3f} to {stop - base:6.3f} s")
    for name, values in laps.items():
        print(f"{name}: " + ", ".join(f"{v:.3f}" for v in values))
    client.close()


if __name__ == "__main__":
    main()
