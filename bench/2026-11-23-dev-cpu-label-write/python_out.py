"""Wall time of one call, median of 7, 4096² random images of ccl gen's spec (via ccl.gen? no: numpy rng)."""
import sys, time, statistics
import numpy as np, cv2, ccl
sys.path.insert(0, "/work/main/ccl-python/tests")
side = 4096
rng = np.random.default_rng(0)
def image(d, g):
    cells = rng.random(((side + g - 1) // g,) * 2) < d / 100
    return np.repeat(np.repeat(cells, g, 0), g, 1)[:side, :side].astype(np.uint8)
def med(f, reps=7):
    f(); ts = []
    for _ in range(reps):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e3
cv2.setNumThreads(2)
print("d g c  ccl.label  ccl.label(out=)  cv2.cc  cv2.cc(labels=)")
for d, g in [(50, 1), (30, 4), (70, 16)]:
    img = image(d, g)
    out = np.empty(img.shape, np.uint32)
    cvout = np.empty(img.shape, np.int32)
    for c in (4, 8):
        a = med(lambda: ccl.label(img, c, algorithm="cpu-rle"))
        b = med(lambda: ccl.label(img, c, algorithm="cpu-rle", out=out))
        e = med(lambda: cv2.connectedComponents(img, connectivity=c, ltype=cv2.CV_32S))
        f = med(lambda: cv2.connectedComponents(img, labels=cvout, connectivity=c, ltype=cv2.CV_32S))
        print(f"{d} {g} {c}  {a:.1f}  {b:.1f}  {e:.1f}  {f:.1f}")
