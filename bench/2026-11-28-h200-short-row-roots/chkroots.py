# Root counting on rows of 3 and 5 root words (130 and 300 pixels: a warp's
# rows do not fill its 32 words, and its words cross the ranking's groups of
# 1024), one image and a batch, against cpu-rle.
import numpy as np, cupy, ccl
from random_masks import rnd
n = 0
for width, height in ((130, 2000), (300, 1000), (512, 700), (33, 3000)):
    for d in (10, 50, 90):
        x = rnd((height, width), d, 1, width + d)
        b = rnd((3, height // 3, width), d, 1, width * d)
        for c in (4, 8):
            l, k = ccl.label(cupy.asarray(x), c)
            h, m = ccl.label(x, c, algorithm="cpu-rle")
            assert k == m and (l.get().astype(np.int64) == h).all(), (width, height, d, c)
            l, k = ccl.label(cupy.asarray(b), c, batch=True)
            h, m = ccl.label(b, c, batch=True, algorithm="cpu-rle")
            assert (k.get() == m).all() and (l.get().astype(np.int64) == h).all(), (width, height, d, c, "batch")
            n += 2
print("chkroots ok", n)
