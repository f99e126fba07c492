"""Batches whose rows hold many runs, for ncu: one `ccl.label` each (after
one warm-up) of 256 masks of 512^2 at g = 1, 30 and 60 %, 4-conn. (drawn as
scripts/peers/time_batch_peers.py draws them). (call4.sh and call5.sh ran
an earlier version, whose third call, a 512^3 volume, took another
labeler by default, and failed in call5.sh with `algorithm="flsl"`, which
labels images only.)"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402


def main():
    import cupy

    import ccl

    calls = []
    for d in (30, 60):
        batch = cupy.asarray(np.stack([random_image(512, 512, d, 1, i) for i in range(256)]))
        calls.append(lambda batch=batch: ccl.label(batch, 4, batch=True))
    for call in calls:
        call()
        call()
        cupy.cuda.Device().synchronize()


if __name__ == "__main__":
    sys.exit(main())
