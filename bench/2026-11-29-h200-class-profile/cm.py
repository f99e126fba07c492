# Class maps of 4 classes (scripts/peers/time_classes.py's), several kinds
# of ccl.label_classes call in one process, as ../2026-11-29-h200-flat-bands/bm.py:
#   cm.py ncu|time CONFIG...   CONFIG: img-G-D-C (8192^2) or batch-G-D-C (256 maps of 512^2)
import sys, time, statistics
from pathlib import Path
import cupy
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))
from time_classes import class_map  # noqa: E402
import ccl  # noqa: E402

mode, configs = sys.argv[1], sys.argv[2:]
for config in configs:
    kind, g, d, c = config.split("-")
    shape = (256, 512, 512) if kind == "batch" else (8192, 8192)
    values = cupy.asarray(class_map(shape, int(d), int(g)))
    f = lambda: ccl.label_classes(values, int(c))  # noqa: E731
    for _ in range(3):
        f()
    cupy.cuda.Device().synchronize()
    if mode == "time":
        t = []
        for _ in range(21):
            s = time.perf_counter()
            f()
            cupy.cuda.Device().synchronize()
            t.append((time.perf_counter() - s) * 1e3)
        print(f"{config} {statistics.median(t):.3f} ms", flush=True)
    else:
        cupy.cuda.runtime.profilerStart()
        f()
        cupy.cuda.Device().synchronize()
        cupy.cuda.runtime.profilerStop()
