import sys, numpy as np, cupy, ccl, time, statistics
def rnd(w, h, d, g, seed):
    cw, ch = -(-w // g), -(-h // g)
    u = np.random.RandomState(seed).randint(0, 2**32, size=ch * cw, dtype=np.uint32)
    c = (u.astype(np.uint64) < d * 2**32 // 100).reshape(ch, cw)
    return np.ascontiguousarray(c.repeat(g, 0).repeat(g, 1)[:h, :w].astype(np.uint8))
mode, g, d, conn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if mode == "batch":
    x = cupy.asarray(np.stack([rnd(512, 512, d, g, i) for i in range(256)]))
    f = lambda: ccl.label(x, conn, batch=True)
else:
    x = cupy.asarray(rnd(8192, 8192, d, g, 0))
    f = lambda: ccl.label(x, conn)
reps = int(sys.argv[5]) if len(sys.argv) > 5 else 3
for _ in range(reps): f(); cupy.cuda.Device().synchronize()
if len(sys.argv) > 6:
    t = []
    for _ in range(21):
        s = time.perf_counter(); f(); cupy.cuda.Device().synchronize(); t.append((time.perf_counter() - s) * 1e3)
    print(mode, g, d, conn, f"{statistics.median(t):.3f} ms")
