"""Where a batch call's time goes beyond its kernels: for 256 masks of
512^2 (time_batch_peers.py's images), `ccl.label(batch, c, batch=True)`
timed three ways, median of --reps calls after a warm-up:

- wall: from before the call until the device is idle (as the batch table
  times it);
- events: CUDA events recorded on the current stream before and after the
  call, then synchronized: the device's time from the first queued work to
  the last, idle gaps between kernels included;
- host: the call's return alone, without waiting for the device.

One CSV line per cell: d,g,c,wall_ms,events_ms,host_ms. Under ncu
(--clock-control none, gpu__time_duration.sum) with --reps 1 it also
gives the kernels' sum at the clocks the timed calls run at.

  python3 gaps.py --cells 75:1:4,30:1:4,10:16:4 --reps 30
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402

from overhead import timed  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cells", default="75:1:4")
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    import cupy

    import ccl

    for cell in args.cells.split(","):
        d, g, c = map(int, cell.split(":"))
        batch = cupy.asarray(np.stack([random_image(512, 512, d, g, i) for i in range(256)]))
        stream = cupy.cuda.get_current_stream()
        times = timed(cupy, stream, lambda: ccl.label(batch, c, batch=True), args.reps)
        print(f"{d},{g},{c},{times}", flush=True)


if __name__ == "__main__":
    main()
