# Class-map batches (256 maps of 512^2, 4 classes, scripts/peers/time_classes.py's
# maps) in bands against all rows at once (the measuring switch
# CCL_CLASS_BATCH_FLAT of classflat.patch), interleaved in one process:
# median ms of 11 synchronized calls per mode, three rounds, beside the
# binary batch of the same foreground.
import os, sys, time, statistics
import numpy as np, cupy, ccl
sys.path.insert(0, "scripts/peers")
from time_classes import class_map


def median_ms(run, reps=11):
    run()
    cupy.cuda.Device().synchronize()
    t = []
    for _ in range(reps):
        s = time.perf_counter()
        run()
        cupy.cuda.Device().synchronize()
        t.append((time.perf_counter() - s) * 1e3)
    return statistics.median(t)


for g in (1, 4, 16):
    for d in (10, 30, 60, 90):
        batch = cupy.asarray(np.stack([class_map((512, 512), d, g, seed=i) for i in range(256)]))
        binary = batch != 0
        for c in (4, 8):
            ms = {"binary": [], "bands": [], "flat": []}
            for _ in range(3):
                ms["binary"].append(median_ms(lambda: ccl.label(binary, c, batch=True)))
                for mode in ("bands", "flat"):
                    if mode == "flat":
                        os.environ["CCL_CLASS_BATCH_FLAT"] = "1"
                    else:
                        os.environ.pop("CCL_CLASS_BATCH_FLAT", None)
                    ms[mode].append(median_ms(lambda: ccl.label_classes(batch, c, batch=True)))
            os.environ.pop("CCL_CLASS_BATCH_FLAT", None)
            b, bands, flat = (min(ms[k]) for k in ("binary", "bands", "flat"))
            print(f"g={g} d={d} c={c}: binary {b:.3f} bands {bands:.3f} ({bands / b:.2f}x) "
                  f"flat {flat:.3f} ({flat / b:.2f}x)  rounds {ms}", flush=True)
