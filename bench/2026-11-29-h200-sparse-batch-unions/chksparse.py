# The labels of sparse batches, whose unions now go all rows at once
# (flsl.cu, flsl_unions_go_flat), and of batches around the switch, equal
# cpu-rle's: 4- and 8-connectivity, g = 1 / 4 / 16, batches of 512-pixel
# rows and of odd sizes (fewer words than the sample's 256 strata, rows
# not a multiple of 32 or of the bands' 16). With `quick`, the small ones
# alone (for compute-sanitizer). Also `keep` (the clean-up's mask) of one.
import sys
import numpy as np, cupy, ccl
sys.path.insert(0, "bench/2026-11-28-h200-short-row-roots")
from random_masks import rnd
quick = sys.argv[1:] == ["quick"]
shapes = [(5, 100, 300), (3, 37, 45), (2, 1, 7), (4, 33, 513)]
if not quick:
    shapes = [(64, 512, 512)] + shapes
n = 0
for shape in shapes:
    for d in (3, 10, 14, 17, 19, 22, 30):
        for g in (1, 4, 16):
            x = rnd(shape, d, g, d * 31 + g)
            for c in (4, 8):
                l, k = ccl.label(cupy.asarray(x), c, batch=True)
                h, m = ccl.label(x, c, batch=True, algorithm="cpu-rle")
                assert (k.get() == m).all() and (l.get().astype(np.int64) == h).all(), (shape, d, g, c)
                n += 1
x = rnd((16, 512, 512), 10, 1, 7)
kept = ccl.keep(cupy.asarray(x), 8, batch=True, min_size=3).get()
h, m = ccl.label(x, 8, batch=True, algorithm="cpu-rle")
for i in range(len(x)):
    areas = np.bincount(h[i].ravel())
    assert (kept[i] == ((areas[h[i]] >= 3) & (h[i] > 0))).all(), i
print("chksparse ok", n + 1)
