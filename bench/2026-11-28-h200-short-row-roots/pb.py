# One kind of ccl.label call on CuPy, timed (median wall ms of 21
# synchronized calls after 3) or, without `time`, called once inside a
# profiler window for `ncu --profile-from-start off`:
#   pb.py one|batch|vol|vol-ALGO G D CONN [time]
# one: an 8192^2 image; batch: 256 masks of 512^2 (batch=True); vol: a
# 512^3 volume (the default algorithm, or ALGO).
import sys, time, statistics
import numpy as np, cupy, ccl
def rnd(w, h, d, g, seed):
    cw, ch = -(-w // g), -(-h // g)
    u = np.random.RandomState(seed).randint(0, 2**32, size=ch * cw, dtype=np.uint32)
    c = (u.astype(np.uint64) < d * 2**32 // 100).reshape(ch, cw)
    return np.ascontiguousarray(c.repeat(g, 0).repeat(g, 1)[:h, :w].astype(np.uint8))
mode, g, d, conn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if mode.startswith("vol"):
    n = 512
    x = cupy.asarray(np.stack([rnd(n, n, d, g, i) for i in range(n)]))
    algo = None if mode == "vol" else mode[4:]
    f = lambda: ccl.label(x, conn, algorithm=algo)
elif mode == "batch":
    x = cupy.asarray(np.stack([rnd(512, 512, d, g, i) for i in range(256)]))
    f = lambda: ccl.label(x, conn, batch=True)
else:
    x = cupy.asarray(rnd(8192, 8192, d, g, 0))
    f = lambda: ccl.label(x, conn)
for _ in range(3): f()
cupy.cuda.Device().synchronize()
if len(sys.argv) > 5:
    t = []
    for _ in range(21):
        s = time.perf_counter(); f(); cupy.cuda.Device().synchronize(); t.append((time.perf_counter() - s) * 1e3)
    print(mode, g, d, conn, f"{statistics.median(t):.3f} ms")
else:
    cupy.cuda.runtime.profilerStart(); f(); cupy.cuda.Device().synchronize(); cupy.cuda.runtime.profilerStop()
