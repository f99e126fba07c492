# ccl.label_classes (numpy, CPU) beside cc3d's multilabel connected_components
# on the same maps of 4 classes (time_classes_cpu.py [SIDE [DTYPE [volume]]],
# default 2048 uint8: 2048^2 images; with `volume`, SIDE^3 volumes in 6
# and 26); median ms of 7 calls after one (3 for volumes), the two
# interleaved; answers compared (same component count).
import sys, time, statistics
import numpy as np, cc3d, ccl
def cls_map(shape, d, g, seed):
    r = np.random.RandomState(seed)
    cells_shape = tuple(-(-n // g) for n in shape)
    cells = np.where(r.random_sample(cells_shape) < d / 100, r.randint(1, 5, cells_shape), 0).astype(np.uint8)
    for axis in range(len(shape)):
        cells = cells.repeat(g, axis)
    return np.ascontiguousarray(cells[tuple(slice(0, n) for n in shape)])
volume = len(sys.argv) > 3 and sys.argv[3] == "volume"
side = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
dtype = np.dtype(sys.argv[2] if len(sys.argv) > 2 else "uint8")
shape = (side,) * (3 if volume else 2)
name = "x".join(map(str, shape))
for g in (1, 4):
    for d in (30, 60, 90):
        m = cls_map(shape, d, g, 1).astype(dtype)
        for c in ((6, 26) if volume else (4, 8)):
            a, b = [], []
            for i in range(4 if volume else 8):
                s = time.perf_counter(); out = ccl.label_classes(m, c); t1 = time.perf_counter()
                ref = cc3d.connected_components(m, connectivity=c, out_dtype=np.uint32); t2 = time.perf_counter()
                if i:
                    a.append((t1 - s) * 1e3); b.append((t2 - t1) * 1e3)
            n = len(out[1])
            assert n == int(ref.max()), (n, int(ref.max()))
            print(f"{dtype} {name} g{g} d{d} c{c}: ccl {statistics.median(a):8.2f} ms  cc3d {statistics.median(b):8.2f} ms  x{statistics.median(b)/statistics.median(a):.2f}  ({n} comps)", flush=True)
