# Median wall ms of 9 synchronized ccl.label calls on an 8192^2 CuPy image
# (after 2), g = 1 / 4 / 16, d = 20..90 %, 4 and 8: `grid.py TAG`.
import sys, time, statistics
import numpy as np, cupy, ccl
def rnd(w, h, d, g, seed):
    cw, ch = -(-w // g), -(-h // g)
    u = np.random.RandomState(seed).randint(0, 2**32, size=ch * cw, dtype=np.uint32)
    c = (u.astype(np.uint64) < d * 2**32 // 100).reshape(ch, cw)
    return np.ascontiguousarray(c.repeat(g, 0).repeat(g, 1)[:h, :w].astype(np.uint8))
tag = sys.argv[1]
for g in (1, 4, 16):
    for d in (20, 30, 40, 50, 60, 70, 80, 90):
        x = cupy.asarray(rnd(8192, 8192, d, g, 0))
        for conn in (4, 8):
            for _ in range(2): ccl.label(x, conn)
            cupy.cuda.Device().synchronize()
            t = []
            for _ in range(9):
                s = time.perf_counter(); ccl.label(x, conn); cupy.cuda.Device().synchronize(); t.append((time.perf_counter() - s) * 1e3)
            print(tag, g, d, conn, f"{statistics.median(t):.3f}", flush=True)
