"""Session probe: ccl.label of host numpy arrays, in-core (uploaded whole) vs strips (max_gpu_memory
= 80 % of free), by size; labels compared."""
import sys, time, statistics
import numpy as np
import cupy
import ccl
sys.path.insert(0, "scripts/scale")
from time_strips import random_image

free = cupy.cuda.runtime.memGetInfo()[0]
cap = int(free * 0.8)
def t(f, reps=3):
    f()
    ts = []
    for _ in range(reps):
        s = time.perf_counter(); r = f(); ts.append(time.perf_counter() - s)
    return statistics.median(ts) * 1e3, r
for side in (2048, 4096, 8192, 16384, 32768):
    img = random_image(side, 60, 3)
    out = np.empty(img.shape, np.uint32)
    a, (l1, n1) = t(lambda: ccl.label(img, 4, out=out))
    l1 = l1.copy()
    b, (l2, n2) = t(lambda: ccl.label(img, 4, out=out, max_gpu_memory=cap))
    c, _ = t(lambda: ccl.label(img, 4))
    d, _ = t(lambda: ccl.label(img, 4, max_gpu_memory=cap))
    print(f"{side}^2: in-core out= {a:.1f} ms, strips out= {b:.1f} ms; no out: in-core {c:.1f}, strips {d:.1f}; equal {n1 == n2 and (l1 == l2).all()}", flush=True)
for side, c in ((256, 26), (512, 26), (512, 6)):
    vol = (np.random.default_rng(1).random((side,) * 3) < 0.3).astype(np.uint8)
    out = np.empty(vol.shape, np.uint32)
    a, (l1, n1) = t(lambda: ccl.label(vol, c, out=out)); l1 = l1.copy()
    b, (l2, n2) = t(lambda: ccl.label(vol, c, out=out, max_gpu_memory=cap))
    print(f"{side}^3 c{c}: in-core out= {a:.1f} ms, strips out= {b:.1f} ms; equal {n1 == n2 and (l1 == l2).all()}", flush=True)
