"""The host's share of a batch call: `ccl.label(batch, 4, batch=True)` of
a tiny batch (4 masks of 64^2) and of 256 masks of 512^2 (g = 16, 10 %),
beside the native call it makes (`_ccl.label_batch_device`, its outputs
allocated once, as `_label_device_batch` allocates them per call). Each
timed as gaps.py times (wall, events, host return; median of --reps), one
CSV line: input,call,wall_ms,events_ms,host_ms. Then cProfile's 25
costliest functions (own time) over 500 `ccl.label` calls of the tiny
batch.

  python3 overhead.py --reps 200
"""

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402


def timed(cupy, stream, call, reps):
    call()
    stream.synchronize()
    wall, events, host = [], [], []
    for _ in range(reps):
        start_event, end_event = cupy.cuda.Event(), cupy.cuda.Event()
        stream.synchronize()
        start = time.perf_counter()
        start_event.record(stream)
        call()
        returned = time.perf_counter()
        end_event.record(stream)
        end_event.synchronize()
        done = time.perf_counter()
        wall.append((done - start) * 1e3)
        host.append((returned - start) * 1e3)
        events.append(cupy.cuda.get_elapsed_time(start_event, end_event))
    med = statistics.median
    return f"{med(wall):.4f},{med(events):.4f},{med(host):.4f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    args = parser.parse_args()
    import cupy

    import ccl
    from ccl import _ccl

    stream = cupy.cuda.get_current_stream()
    inputs = {
        "4x64^2": cupy.asarray(np.stack([random_image(64, 64, 50, 1, i) for i in range(4)])),
        "256x512^2 g16 10%": cupy.asarray(np.stack([random_image(512, 512, 10, 16, i) for i in range(256)])),
    }
    for name, batch in inputs.items():
        images, height, width = batch.shape
        print(f"{name},ccl.label,{timed(cupy, stream, lambda: ccl.label(batch, 4, batch=True), args.reps)}")
        device = ccl._DeviceInput.of(batch, volumes=True)
        labels = device.empty((images, height, width), device.label_dtype)
        counts = device.empty((images,), "uint32")
        labels_at, counts_at = device.address_of(labels), device.address_of(counts)

        def native():
            _ccl.label_batch_device(
                device.ordinal, device.stream, device.args, images, height,
                labels_at, counts_at, 4, None, None, None,
            )  # fmt: skip

        print(f"{name},native,{timed(cupy, stream, native, args.reps)}", flush=True)
    tiny = inputs["4x64^2"]
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(500):
        ccl.label(tiny, 4, batch=True)
    profile.disable()
    stream.synchronize()
    pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
