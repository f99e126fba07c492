import time, statistics, numpy as np, cupyx, ccl
side = 65536
block = (np.random.default_rng(3).integers(0, 100, (8192, side), dtype=np.uint8) < 60).view(np.uint8)
image = np.tile(block, (side // 8192, 1)); del block
print("image ready", flush=True)
pinned = cupyx.empty_pinned(image.shape, np.uint64)
plain = np.empty(image.shape, np.uint64); plain[...] = 0
for cap, devices in (("8GiB", [0]), ("4GiB", [0, 0]), ("2GiB", [0, 0, 0, 0])):
    for name, out in (("pinned", pinned), ("numpy", plain)):
        ccl.label(image, 4, max_gpu_memory=cap, devices=devices, out=out)
        times = []
        for _ in range(3):
            t = time.perf_counter(); _, n = ccl.label(image, 4, max_gpu_memory=cap, devices=devices, out=out); times.append(time.perf_counter() - t)
        print(f"{name} cap {cap} x {len(devices)} devices ({4*len(devices)} workers): {statistics.median(times)*1e3:.0f} ms, n={n}", flush=True)
