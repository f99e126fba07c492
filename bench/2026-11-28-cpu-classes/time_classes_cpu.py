# ccl.label_classes (numpy, CPU) beside cc3d's multilabel connected_components
# on the same 2048^2 maps of 4 classes (time_classes_cpu.py [SIDE [DTYPE]],
# default 2048 uint8); median ms of 7 calls after one, the
# two interleaved; answers compared (same partition, same count).
import sys, time, statistics
import numpy as np, cc3d, ccl
def cls_map(side, d, g, seed):
    r = np.random.RandomState(seed)
    cw = -(-side // g)
    cells = np.where(r.random_sample((cw, cw)) < d / 100, r.randint(1, 5, (cw, cw)), 0).astype(np.uint8)
    return np.ascontiguousarray(cells.repeat(g, 0).repeat(g, 1)[:side, :side])
side = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
dtype = np.dtype(sys.argv[2] if len(sys.argv) > 2 else "uint8")
for g in (1, 4):
    for d in (30, 60, 90):
        m = cls_map(side, d, g, 1).astype(dtype)
        for c in (4, 8):
            a, b = [], []
            for i in range(8):
                s = time.perf_counter(); out = ccl.label_classes(m, c); t1 = time.perf_counter()
                ref = cc3d.connected_components(m, connectivity=c, out_dtype=np.uint32); t2 = time.perf_counter()
                if i:
                    a.append((t1 - s) * 1e3); b.append((t2 - t1) * 1e3)
            n = len(out[1])
            assert n == int(ref.max()), (n, int(ref.max()))
            print(f"{dtype} {side}^2 g{g} d{d} c{c}: ccl {statistics.median(a):7.2f} ms  cc3d {statistics.median(b):7.2f} ms  x{statistics.median(b)/statistics.median(a):.2f}  ({n} comps)", flush=True)
