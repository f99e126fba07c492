# A small check for compute-sanitizer: batches whose chunks of bands fit the
# band unions' shared forest (the versions of c1-c3) and batches whose bands do not (2048 columns
# at 60 %, g = 1), 4- and 8-connectivity, against cpu-rle.
import numpy as np, cupy, ccl
from random_masks import rnd
n = 0
for shape, d, g in (((3, 70, 512), 60, 1), ((2, 40, 2048), 60, 1), ((3, 33, 300), 90, 4)):
    x = rnd(shape, d, g, d + g)
    for c in (4, 8):
        l, k = ccl.label(cupy.asarray(x), c, batch=True)
        h, m = ccl.label(x, c, batch=True, algorithm="cpu-rle")
        assert (k.get() == m).all() and (l.get().astype(np.int64) == h).all(), (shape, d, g, c)
        n += 1
print("chkbatch ok", n)
