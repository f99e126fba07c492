# Labels of random CuPy images and batches against cpu-uf, both connectivities.
import numpy as np, cupy, ccl
rng = np.random.default_rng(3)
for shape in ((1000, 1300), (64, 4100), (2100, 13)):
    for d in (0.1, 0.3, 0.45, 0.6, 0.75, 0.9):
        host = rng.random(shape) < d
        for c in (4, 8):
            l, n = ccl.label(cupy.asarray(host), c)
            h, m = ccl.label(host, c, algorithm="cpu-uf")
            assert n == m and (l.get().astype(np.int64) == h).all(), (shape, d, c)
for d in (0.3, 0.6, 0.75):
    host = rng.random((37, 130, 517)) < d
    for c in (4, 8):
        l, n = ccl.label(cupy.asarray(host), c, batch=True)
        h, m = ccl.label(host, c, batch=True, algorithm="cpu-uf")
        assert (n.get() == m).all() and (l.get().astype(np.int64) == h).all(), (d, c)
print("check ok")
