"""Class volume cells labeled twice each (ncu profiles both calls; the
second's kernels are the ones reported by vkernels.py): 512^3 maps of
vab.py, `ccl.label_classes` of a CuPy map.

  python3 vone.py 60,1,6 30,4,26 ...     # density,granularity,connectivity
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from vab import cached_map  # noqa: E402


def main():
    import cupy

    import ccl

    for cell in sys.argv[1:]:
        d, g, c = (int(v) for v in cell.split(","))
        values = cupy.asarray(cached_map(Path("/tmp/class-volumes"), d, g))
        for _ in range(2):
            ccl.label_classes(values, c)
        cupy.cuda.Device().synchronize()
        print(f"cell,{d},{g},{c}", flush=True)


if __name__ == "__main__":
    main()
