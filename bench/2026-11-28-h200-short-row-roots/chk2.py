# The batch and volume labels of the GPU equal cpu-rle's, at the sizes the
# band unions' shared forests see (512-pixel rows, bands of 16 rows).
import numpy as np, cupy, ccl
def rnd(shape, d, g, seed):
    r = np.random.RandomState(seed)
    cells = r.random_sample(tuple(-(-s // g) for s in shape)) < d / 100
    for axis in range(len(shape)):
        cells = cells.repeat(g, axis)
    return np.ascontiguousarray(cells[tuple(slice(0, s) for s in shape)])
n = 0
for d in (10, 45, 60, 75, 90):
    for g in (1, 4):
        x = rnd((64, 512, 512), d, g, d + g)
        for c in (4, 8):
            l, k = ccl.label(cupy.asarray(x), c, batch=True)
            h, m = ccl.label(x, c, batch=True, algorithm="cpu-rle")
            assert (k.get() == m).all() and (l.get().astype(np.int64) == h).all(), (d, g, c)
            n += 1
        v = rnd((160, 512, 512), d, g, d * g)
        for c in (6, 18, 26):
            for algo in ("flsl-cd", None):
                l, k = ccl.label(cupy.asarray(v), c, algorithm=algo)
                h, m = ccl.label(v, c, algorithm="cpu-rle")
                assert k == m and (l.get().astype(np.int64) == h).all(), (d, g, c, algo)
                n += 1
# a checkerboard batch: bands past the shared forest's room
b = (np.indices((16, 37, 1001)).sum(0) % 2).astype(np.uint8)
b[8:] = rnd((8, 37, 1001), 50, 1, 5)
for c in (4, 8):
    l, k = ccl.label(cupy.asarray(b), c, batch=True)
    h, m = ccl.label(b, c, batch=True, algorithm="cpu-rle")
    assert (k.get() == m).all() and (l.get().astype(np.int64) == h).all(), c
    n += 1
print("check ok", n)
