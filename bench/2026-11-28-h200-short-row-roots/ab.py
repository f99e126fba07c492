# A/B timing of one wheel: median wall ms of 21 synchronized ccl.label calls
# on CuPy arrays, a batch of 256 masks of 512^2 and one 8192^2 image of the
# same density (bench/2026-11-28-h200-staged-runs/pb.py's images).
# ab.py TAG CONNS
# Run from the repository root: the images are time-batch-peers' own.
import os, sys, time, statistics
import numpy as np, cupy, ccl
sys.path.insert(0, "scripts/peers")
from time_batch_peers import random_image as rnd
def cached(mode, g, d):
    path = f"/tmp/abcache/{mode}-{g}-{d}.npy"
    if not os.path.exists(path):
        os.makedirs("/tmp/abcache", exist_ok=True)
        x = np.stack([rnd(512, 512, d, g, i) for i in range(256)]) if mode == "batch" else rnd(8192, 8192, d, g, 0)
        np.save(path, x)
    return cupy.asarray(np.load(path))
tag, conns = sys.argv[1], [int(c) for c in sys.argv[2].split(",")]
for g in (1, 4, 16):
    for d in (10, 30, 45, 60, 75, 90):
        for mode in ("batch", "one"):
            x = cached(mode, g, d)
            for conn in conns:
                f = (lambda: ccl.label(x, conn, batch=True)) if mode == "batch" else (lambda: ccl.label(x, conn))
                for _ in range(3): f()
                cupy.cuda.Device().synchronize()
                t = []
                for _ in range(21):
                    s = time.perf_counter(); f(); cupy.cuda.Device().synchronize(); t.append((time.perf_counter() - s) * 1e3)
                print(tag, mode, g, d, conn, f"{statistics.median(t):.4f}", flush=True)
