"""`ccl.label_classes` of numpy class volumes (256^3 of 4 classes,
time_classes.py's maps) beside cc3d's `connected_components`, median ms of
5 calls, one CSV line per cell; run in alternating processes of two wheels:

  PYTHONPATH=SITE python3 vab.py --tag new >> vab.csv
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "2026-11-29-cpu-classes-into"))

from ab import median_ms  # noqa: E402
from time_classes import class_map  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tag", required=True)
    args = parser.parse_args()

    import cc3d

    import ccl

    for density in (30, 60, 90):
        for g in (1, 4):
            host = class_map((256, 256, 256), density, g)
            for c in (6, 26):
                ours = median_ms(lambda: ccl.label_classes(host, c), reps=5)
                theirs = median_ms(lambda: cc3d.connected_components(host, connectivity=c), reps=5)
                print(f"{args.tag},{density},{g},{c},{ours:.3f},{theirs:.3f}", flush=True)


if __name__ == "__main__":
    main()
