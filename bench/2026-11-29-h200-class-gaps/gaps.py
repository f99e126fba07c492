"""Where the wall time of `ccl.label_classes` goes beside the GPU's work:
each call's kernels, copies and the gaps between them, from a CUPTI trace
(torch.profiler), for 8192^2 maps of 4 classes and the binary `ccl.label`
of the same foreground. Calls are 3 ms apart, so a trace splits into calls
at gaps over 1 ms.

  python3 gaps.py > gaps.txt
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_classes import class_map  # noqa: E402


def main():
    import cupy
    import torch
    from torch.profiler import ProfilerActivity, profile

    import ccl

    cases = [(30, 1, 4), (30, 4, 8), (90, 1, 4), (60, 4, 4)]
    calls = []
    for density, g, c in cases:
        values = cupy.asarray(class_map((8192, 8192), density, g))
        binary = values != 0
        for _ in range(3):
            ccl.label(binary, c)
            ccl.label_classes(values, c)
        calls.append((f"binary {density} {g} {c}", lambda b=binary, c=c: ccl.label(b, c)))
        calls.append((f"classes {density} {g} {c}", lambda v=values, c=c: ccl.label_classes(v, c)))
    batch = cupy.asarray(class_map((256 * 512, 512), 30, 4)).reshape(256, 512, 512)
    for _ in range(3):
        ccl.label(batch != 0, 8, batch=True)
        ccl.label_classes(batch, 8, batch=True)
    bb = batch != 0
    calls.append(("binary batch 30 4 8", lambda: ccl.label(bb, 8, batch=True)))
    calls.append(("classes batch 30 4 8", lambda: ccl.label_classes(batch, 8, batch=True)))
    cupy.cuda.Device().synchronize()
    walls = []
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        for name, call in calls:
            for _ in range(3):
                time.sleep(0.003)
                t = time.perf_counter()
                call()
                cupy.cuda.Device().synchronize()
                walls.append((name, (time.perf_counter() - t) * 1e3))
    prof.export_chrome_trace("/tmp/trace.json")
    events = json.load(open("/tmp/trace.json"))["traceEvents"]
    gpu = sorted(
        (e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")),
        key=lambda e: e["ts"],
    )
    groups, current = [], []
    for e in gpu:
        if current and e["ts"] - (current[-1]["ts"] + current[-1]["dur"]) > 1000:
            groups.append(current)
            current = []
        current.append(e)
    groups.append(current)
    print(f"{len(groups)} groups, {len(walls)} calls")
    for (name, wall), group in zip(walls, groups):
        span = group[-1]["ts"] + group[-1]["dur"] - group[0]["ts"]
        busy = sum(e["dur"] for e in group)
        print(f"== {name}: wall {wall:.3f} ms, GPU span {span / 1e3:.3f} ms, busy {busy / 1e3:.3f} ms")
        end = group[0]["ts"]
        for e in group:
            gap = e["ts"] - end
            print(f"   {gap:7.1f} gap  {e['dur']:7.1f}  {e['cat']:10s} {e['name'][:60]}")
            end = e["ts"] + e["dur"]


if __name__ == "__main__":
    main()
