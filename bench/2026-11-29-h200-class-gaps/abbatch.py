"""Binary batches (256 masks of 512^2) and one 8192^2 image, time_batch_peers.py's
images and timing (median ms of 21 synchronized `ccl.label` calls), one CSV
line per cell; run in alternating processes of two wheels for an A/B:

  PYTHONPATH=SITE python3 abbatch.py --tag new >> abbatch.csv
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_batch_peers import median_ms, random_image  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", required=True)
    args = parser.parse_args()

    import cupy

    import ccl

    for g in (1, 4, 16):
        for d in (10, 30, 75):
            batch = cupy.asarray(np.stack([random_image(512, 512, d, g, i) for i in range(256)]))
            single = cupy.asarray(random_image(8192, 8192, d, g, 0))
            for c in (4, 8):
                b, _ = median_ms(cupy, lambda: ccl.label(batch, c, batch=True), 21)
                o, _ = median_ms(cupy, lambda: ccl.label(single, c), 21)
                print(f"{args.tag},{g},{d},{c},{b:.4f},{o:.4f}", flush=True)


if __name__ == "__main__":
    main()
