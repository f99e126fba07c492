"""Compares keep-largest on the GPU with the CPU's on the same inputs:
`ccl.label(x, c, largest=1)` and `ccl.keep(x, c, largest=1)` of CuPy
images (4 and 8) and volumes (6 and 26) against the same calls on the NumPy
copy (cpu-rle and the host filter). Small inputs by default (for the
sanitizers), --size large for 4096^2 and 256^3. Prints one line per
mismatch and a final count; exits 1 on any mismatch.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))

from time_filters import random_array  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=["small", "large"], default="small")
    args = parser.parse_args()
    import cupy as cp

    import ccl

    shapes = {"small": [(300, 257), (40, 33, 29)], "large": [(4096, 4096), (256, 256, 256)]}[args.size]
    checked = bad = 0
    for shape in shapes:
        connectivities = (4, 8) if len(shape) == 2 else (6, 26)
        for density in (0, 10, 30, 60, 90, 100):
            for g in (1, 4):
                host = random_array(shape, density, g, seed=density * 7 + g)
                device = cp.asarray(host)
                for c in connectivities:
                    for name, call in (("label", ccl.label), ("keep", ccl.keep)):
                        ours, theirs = call(device, c, largest=1), call(host, c, largest=1)
                        if name == "label":  # (labels, count)
                            same_count = int(ours[1]) == int(theirs[1])
                            ours, theirs = ours[0], theirs[0]
                        else:
                            same_count = True
                        ours, theirs = cp.asnumpy(ours), np.asarray(theirs)
                        checked += 1
                        if not same_count or ours.dtype != theirs.dtype or not np.array_equal(ours, theirs):
                            bad += 1
                            print(f"MISMATCH {name} {shape} d={density} g={g} c={c}", flush=True)
    print(f"{'ok' if bad == 0 else 'FAILED'} {checked - bad} of {checked} keep-largest calls equal to the CPU's")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
