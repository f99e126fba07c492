"""One batch cell, labeled twice (ncu profiles the second call's kernel):
256 masks of 512^2, time_batch_peers.py's images.

  python3 one.py --density 75 --granularity 1 --connectivity 4
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import random_image  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--density", type=int, default=75)
    parser.add_argument("--granularity", type=int, default=1)
    parser.add_argument("--connectivity", type=int, default=4)
    args = parser.parse_args()
    import cupy

    import ccl

    d, g = args.density, args.granularity
    batch = cupy.asarray(np.stack([random_image(512, 512, d, g, i) for i in range(256)]))
    for _ in range(2):
        ccl.label(batch, args.connectivity, batch=True)
    cupy.cuda.Device().synchronize()


if __name__ == "__main__":
    main()
