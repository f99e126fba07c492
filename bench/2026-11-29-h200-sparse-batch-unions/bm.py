# Several kinds of ccl.label call on CuPy in one process:
#   bm.py ncu CONFIG...   each config's call once inside a profiler window
#                         (for `ncu --profile-from-start off`), in order
#   bm.py time CONFIG...  each config's median wall ms of 21 synchronized
#                         calls after 3
# CONFIG: batch-G-D-C (256 masks of 512^2, batch=True), one-G-D-C (one
# 8192^2 image) or vol-ALGO-G-D-C (a 512^3 volume).
import sys, time, statistics
import numpy as np, cupy, ccl


def rnd(w, h, d, g, seed):
    cw, ch = -(-w // g), -(-h // g)
    u = np.random.RandomState(seed).randint(0, 2**32, size=ch * cw, dtype=np.uint32)
    c = (u.astype(np.uint64) < d * 2**32 // 100).reshape(ch, cw)
    return np.ascontiguousarray(c.repeat(g, 0).repeat(g, 1)[:h, :w].astype(np.uint8))


def call(config):
    parts = config.split("-")
    g, d, conn = int(parts[-3]), int(parts[-2]), int(parts[-1])
    if parts[0] == "vol":
        x = cupy.asarray(np.stack([rnd(512, 512, d, g, i) for i in range(512)]))
        return lambda: ccl.label(x, conn, algorithm="-".join(parts[1:-3]))
    if parts[0] == "batch":
        x = cupy.asarray(np.stack([rnd(512, 512, d, g, i) for i in range(256)]))
        return lambda: ccl.label(x, conn, batch=True)
    x = cupy.asarray(rnd(8192, 8192, d, g, 0))
    return lambda: ccl.label(x, conn)


mode, configs = sys.argv[1], sys.argv[2:]
for config in configs:
    f = call(config)
    for _ in range(3):
        f()
    cupy.cuda.Device().synchronize()
    if mode == "time":
        t = []
        for _ in range(21):
            s = time.perf_counter()
            f()
            cupy.cuda.Device().synchronize()
            t.append((time.perf_counter() - s) * 1e3)
        print(f"{config} {statistics.median(t):.3f} ms", flush=True)
    else:
        cupy.cuda.runtime.profilerStart()
        f()
        cupy.cuda.Device().synchronize()
        cupy.cuda.runtime.profilerStop()
